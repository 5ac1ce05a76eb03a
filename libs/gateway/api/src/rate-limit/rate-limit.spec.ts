import { TransportSecurityRule } from '../http/transport-security';
import { addressBucketOf, clientAddressOf } from './client-address';
import { rateLimitHeaders } from './token-bucket';

describe('rate-limit headers', () => {
  const policy = { ratePerSecond: 10, burst: 50 };

  it('tells an admitted request the bucket size, the whole tokens left and the seconds until it is full', () => {
    expect(rateLimitHeaders(policy, { allowed: true, tokens: 29.6 })).toEqual({ 'ratelimit-limit': '50', 'ratelimit-remaining': '29', 'ratelimit-reset': '3' });
  });

  it('tells a refused request when the next token is back, at least one second', () => {
    expect(rateLimitHeaders(policy, { allowed: false, tokens: 0.2 })).toMatchObject({ 'ratelimit-remaining': '0', 'retry-after': '1', 'ratelimit-reset': '5' });
    expect(rateLimitHeaders({ ratePerSecond: 1, burst: 5 }, { allowed: false, tokens: 0 })).toMatchObject({ 'retry-after': '1' });
    expect(rateLimitHeaders({ ratePerSecond: 1, burst: 5 }, { allowed: false, tokens: -0.5 })).toMatchObject({ 'retry-after': '1', 'ratelimit-reset': '5' });
  });
});

describe('client address', () => {
  const proxies = new TransportSecurityRule(['10.0.0.0/8']);
  const request = (remoteAddress: string, forwardedFor?: string) => ({
    socket: { remoteAddress },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  });

  it('is the peer when the peer is not a trusted proxy, whatever X-Forwarded-For says', () => {
    expect(clientAddressOf(request('203.0.113.7', '198.51.100.1'), proxies)).toBe('203.0.113.7');
    expect(clientAddressOf(request('::ffff:203.0.113.7'), proxies)).toBe('203.0.113.7');
  });

  it('behind trusted proxies, is the rightmost address that is not a trusted proxy, so a client cannot choose its own bucket', () => {
    expect(clientAddressOf(request('10.0.0.2', '198.51.100.9, 203.0.113.7, 10.0.0.5'), proxies)).toBe('203.0.113.7');
    expect(clientAddressOf(request('10.0.0.2', '203.0.113.7'), proxies)).toBe('203.0.113.7');
  });

  it('stops at the hop that wrote an unparseable entry, and falls back to the proxy with no header', () => {
    expect(clientAddressOf(request('10.0.0.2', 'garbage, 10.0.0.5'), proxies)).toBe('10.0.0.5');
    expect(clientAddressOf(request('10.0.0.2'), proxies)).toBe('10.0.0.2');
  });
});

describe('address bucket', () => {
  it('charges an IPv4 client by its address', () => {
    expect(addressBucketOf('203.0.113.7')).toBe('203.0.113.7');
  });

  it('charges every address of one IPv6 /64 to one bucket, and another /64 to another', () => {
    const bucket = addressBucketOf('2001:db8:1:2::1');
    expect(bucket).toBe('2001:db8:1:2::/64');
    expect(addressBucketOf('2001:db8:1:2:ffff:ffff:ffff:fffe')).toBe(bucket);
    expect(addressBucketOf('2001:0db8:0001:0002:abcd::9')).toBe(bucket);
    expect(addressBucketOf('2001:db8:1:3::1')).not.toBe(bucket);
  });
});
