import Fastify, { type FastifyInstance } from 'fastify';
import { configureGatewayHttp, gatewayFastifyOptions, type GatewayHttpOptions } from './configure-http';
import { isTrustedProxyEntry, securityHeadersFor, STRICT_TRANSPORT_SECURITY, TransportSecurityRule } from './transport-security';

/** A bare server with the gateway's HTTP settings: one route that answers, one that throws. */
async function serverWith(options: GatewayHttpOptions): Promise<FastifyInstance> {
  const server = Fastify(gatewayFastifyOptions(options));
  configureGatewayHttp(server, options);
  server.get('/v2/ok', async () => ({ ok: true }));
  server.get('/v2/fails', async () => {
    throw Object.assign(new Error('refused'), { statusCode: 401 });
  });
  await server.ready();
  return server;
}

describe('security headers', () => {
  const servers: FastifyInstance[] = [];
  const server = async (options: GatewayHttpOptions = {}) => {
    const created = await serverWith(options);
    servers.push(created);
    return created;
  };
  afterAll(async () => Promise.all(servers.map((created) => created.close())));

  it('sends HSTS only for a request that came over TLS', () => {
    expect(securityHeadersFor(true)).toEqual({
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'strict-transport-security': 'max-age=31536000',
    });
    expect(securityHeadersFor(false)).toEqual({ 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' });
  });

  describe('the TLS rule', () => {
    const request = (remoteAddress: string, forwardedProto?: string | string[], encrypted = false) => ({
      socket: { remoteAddress, encrypted },
      headers: forwardedProto === undefined ? {} : { 'x-forwarded-proto': forwardedProto },
    });
    const behindProxies = new TransportSecurityRule(['10.0.0.0/8', '127.0.0.1', 'fd00::/8']);

    it('takes a TLS socket as TLS, with or without proxies', () => {
      expect(new TransportSecurityRule().cameOverTls(request('192.0.2.1', undefined, true))).toBe(true);
      expect(behindProxies.cameOverTls(request('192.0.2.1', 'http', true))).toBe(true);
    });

    it.each([
      ['a trusted proxy saying https', request('10.9.8.7', 'https'), true],
      ['a trusted IPv6 proxy', request('fd00::1', 'HTTPS'), true],
      ['a trusted IPv4 proxy seen through a dual-stack socket', request('::ffff:127.0.0.1', 'https'), true],
      ['the last of several values, added by the nearest proxy', request('10.0.0.1', 'http, https'), true],
      ['the last of several values when it is http', request('10.0.0.1', ['https', 'http']), false],
      ['a trusted proxy saying http', request('10.0.0.1', 'http'), false],
      ['a trusted proxy saying nothing', request('10.0.0.1'), false],
      ['an untrusted peer saying https', request('192.0.2.7', 'https'), false],
      ['an untrusted IPv6 peer saying https', request('2001:db8::1', 'https'), false],
    ])('answers %s', (_case, incoming, overTls) => {
      expect(behindProxies.cameOverTls(incoming)).toBe(overTls);
    });

    it('believes nobody when no proxy is configured', () => {
      expect(new TransportSecurityRule().cameOverTls(request('127.0.0.1', 'https'))).toBe(false);
    });

    it('refuses an entry that is not an address or range', () => {
      expect(() => new TransportSecurityRule(['proxy.internal'])).toThrow('not an IP address or CIDR range: proxy.internal');
    });
  });

  it.each([
    ['a successful answer', '/v2/ok', 200],
    ['an error answer', '/v2/fails', 401],
    ['an unknown route', '/v2/none', 404],
    ['a path the router cannot decode', '/v2/%E0%A4%A', 400],
  ])('puts no-store and nosniff on %s, and no HSTS over plain HTTP', async (_case, url, status) => {
    const response = await (await server()).inject({ method: 'GET', url });
    expect(response.statusCode).toBe(status);
    expect(response.headers).toMatchObject({
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-request-id': expect.stringMatching(/^req_/),
    });
    expect(response.headers['strict-transport-security']).toBeUndefined();
  });

  it('believes X-Forwarded-Proto only from a trusted proxy', async () => {
    const behindProxy = await server({ trustedProxies: ['10.0.0.0/8', '127.0.0.1'] });
    const viaProxy = await behindProxy.inject({ method: 'GET', url: '/v2/ok', remoteAddress: '10.1.2.3', headers: { 'x-forwarded-proto': 'https' } });
    expect(viaProxy.headers['strict-transport-security']).toBe(STRICT_TRANSPORT_SECURITY);
    for (const url of ['/v2/fails', '/v2/none', '/v2/%E0%A4%A']) {
      const errorViaProxy = await behindProxy.inject({ method: 'GET', url, remoteAddress: '127.0.0.1', headers: { 'x-forwarded-proto': 'https' } });
      expect([url, errorViaProxy.statusCode >= 400, errorViaProxy.headers['strict-transport-security']]).toEqual([url, true, STRICT_TRANSPORT_SECURITY]);
    }
    const proxiedPlainHttp = await behindProxy.inject({ method: 'GET', url: '/v2/ok', remoteAddress: '10.1.2.3', headers: { 'x-forwarded-proto': 'http' } });
    expect(proxiedPlainHttp.headers['strict-transport-security']).toBeUndefined();

    const spoofed = await behindProxy.inject({ method: 'GET', url: '/v2/ok', remoteAddress: '192.0.2.7', headers: { 'x-forwarded-proto': 'https' } });
    expect(spoofed.headers['strict-transport-security']).toBeUndefined();
    const noProxiesTrusted = await (await server()).inject({ method: 'GET', url: '/v2/ok', headers: { 'x-forwarded-proto': 'https' } });
    expect(noProxiesTrusted.headers['strict-transport-security']).toBeUndefined();
  });

  it.each([
    ['127.0.0.1', true],
    ['10.0.0.0/8', true],
    ['::1', true],
    ['fd00::/8', true],
    ['10.0.0.0/33', false],
    ['10.0.0.0/', false],
    ['10.0.0.0/8/1', false],
    ['proxy.internal', false],
    ['loopback', false],
  ])('takes %s as a trusted proxy entry: %s', (entry, valid) => {
    expect(isTrustedProxyEntry(entry)).toBe(valid);
  });
});
