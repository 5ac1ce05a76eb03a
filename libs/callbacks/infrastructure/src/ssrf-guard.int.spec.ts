import { CallbackSender } from './delivery/callback-sender';
import { DestinationGuard } from './delivery/ssrf-guard';
import { mappedLookup, TEST_DESTINATION_RULES } from '@mp/callbacks-testing';
import { CallbackReceiver } from '@mp/shared-testing';

/**
 * The `callback_url` list of reliability.md's bad-input lists, sent through the real sender
 * with no allow-list: each is refused before any connection, and a receiver listening on
 * 127.0.0.1 (where most of them point) sees no connection at all.
 */
describe('SSRF guard at connection time', () => {
  let loopback: CallbackReceiver;
  let redirector: CallbackReceiver;
  let rebindLookups = 0;
  const lookup = mappedLookup({
    'loopback.test': '127.0.0.1',
    'metadata.test': '169.254.169.254',
    'v6-loopback.test': '::1',
    // DNS rebinding: the first answer is public, every later one is loopback. The guard checks
    // the answer the socket connects with, not one obtained earlier.
    'rebind.test': () => (rebindLookups++ === 0 ? '93.184.216.34' : '127.0.0.1'),
  });

  beforeAll(async () => {
    loopback = await CallbackReceiver.start({ answer: () => ({ status: 200 }) });
    redirector = await CallbackReceiver.start({
      answer: () => ({ status: 302, headers: { location: loopback.url('/latest/meta-data/') } }),
      host: '127.0.0.2',
    });
  });

  afterAll(async () => {
    await loopback.stop();
    await redirector.stop();
  });

  const sender = (allowList: string[] = []) => new CallbackSender(new DestinationGuard(allowList), 2_000, TEST_DESTINATION_RULES, lookup);

  it.each([
    ['loopback literal', () => `http://127.0.0.1:${loopback.port}/`],
    ['localhost (resolves to loopback)', () => `http://localhost:${loopback.port}/`],
    ['a name mapped to loopback', () => `http://loopback.test:${loopback.port}/`],
    ['a name mapped to ::1', () => `http://v6-loopback.test:${loopback.port}/`],
    ['IPv6 loopback', () => `http://[::1]:${loopback.port}/`],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a name mapped to cloud metadata', () => 'http://metadata.test/latest/meta-data/'],
    ['AWS IPv6 metadata (unique local)', () => 'http://[fd00:ec2::254]/'],
    ['10/8', () => 'http://10.0.0.1/'],
    ['172.16/12', () => 'http://172.16.0.1/'],
    ['172.31 (top of 172.16/12)', () => 'http://172.31.255.254/'],
    ['192.168/16', () => 'http://192.168.1.1/'],
    ['100.64/10 CGNAT', () => 'http://100.64.0.1/'],
    ['0.0.0.0', () => `http://0.0.0.0:${loopback.port}/`],
    ['multicast', () => 'http://224.0.0.1/'],
    ['link-local IPv6', () => 'http://[fe80::1]/'],
    ['decimal IPv4', () => `http://2130706433:${loopback.port}/`],
    ['octal IPv4', () => `http://0177.0.0.1:${loopback.port}/`],
    ['hex IPv4', () => `http://0x7f000001:${loopback.port}/`],
    ['IPv4-mapped IPv6', () => `http://[::ffff:127.0.0.1]:${loopback.port}/`],
    ['IPv4-mapped IPv6 of metadata', () => 'http://[::ffff:a9fe:a9fe]/'],
    ['DNS rebinding', () => `http://rebind.test:${loopback.port}/`],
    ['file:', () => 'file:///etc/passwd'],
    ['gopher:', () => `gopher://127.0.0.1:${loopback.port}/`],
    ['ftp:', () => 'ftp://example.com/'],
    ['userinfo trick', () => `http://good.example@127.0.0.1:${loopback.port}/`],
    ['bracketed host name', () => 'http://[good.com]/'],
  ])('refuses %s', async (_name, url) => {
    if (url().includes('rebind.test')) {
      // Validation-time resolution would have seen a public address.
      rebindLookups = 0;
      await new Promise((resolve) => (lookup as unknown as (h: string, o: object, c: () => void) => void)('rebind.test', {}, () => resolve(undefined)));
    }
    const before = loopback.connections;
    const sent = await sender().send(url(), { 'webhook-id': 'msg_x' }, '{}');
    expect(sent.transport).toEqual({ kind: 'refused_destination' });
    expect(sent.error).toEqual(expect.any(String));
    expect(loopback.connections).toBe(before);
  });

  it('does not follow a public host redirecting inward', async () => {
    // 127.0.0.2 stands in for a public host (allow-listed); its 302 points at loopback.
    const sent = await sender(['127.0.0.2']).send(`http://127.0.0.2:${redirector.port}/`, {}, '{}');
    expect(sent.transport).toEqual({ kind: 'response', status: 302 });
    expect(redirector.connections).toBeGreaterThan(0);
    expect(loopback.connections).toBe(0);
  });

  it('lets through exactly what the operator allow-list names', async () => {
    const allowed = await sender(['127.0.0.1']).send(`http://localhost:${loopback.port}/`, {}, '{}');
    expect(allowed.transport).toEqual({ kind: 'response', status: 200 });
    expect(loopback.connections).toBe(1);
    const other = await sender(['127.0.0.1']).send('http://10.0.0.1/', {}, '{}');
    expect(other.transport).toEqual({ kind: 'refused_destination' });
    const cidr = await sender(['127.0.0.0/8']).send(`http://[::ffff:127.0.0.1]:${loopback.port}/`, {}, '{}');
    expect(cidr.transport).toEqual({ kind: 'refused_destination' });
  });

  it('applies the gateway destination rules before connecting: https only in production, allowed ports, the merchant allow-list', async () => {
    const production = new CallbackSender(
      new DestinationGuard(['127.0.0.1']),
      2_000,
      {
        allowHttp: false,
        allowedPorts: [
          [443, 443],
          [8443, 8443],
        ],
      },
      lookup,
    );
    const development = new CallbackSender(
      new DestinationGuard(['127.0.0.1']),
      2_000,
      { allowHttp: true, allowedPorts: [[loopback.port, loopback.port]] },
      lookup,
    );
    const before = loopback.connections;
    const cases = [
      { sent: await production.send(`http://loopback.test:${loopback.port}/`, {}, '{}'), error: 'must use https://' },
      {
        sent: await production.send(`https://loopback.test:${loopback.port}/`, {}, '{}'),
        error: `port ${loopback.port} is not allowed for callbacks (allowed: 443, 8443)`,
      },
      {
        sent: await development.send(`http://loopback.test:${loopback.port}/`, {}, '{}', ['shop.example']),
        error: "host loopback.test is not on this merchant's callback allow-list",
      },
    ];
    for (const { sent, error } of cases) {
      expect(sent.transport).toEqual({ kind: 'refused_destination' });
      expect(sent.error).toBe(error);
    }
    expect(loopback.connections).toBe(before);
    // The same URL on the merchant's list and an allowed port goes out.
    expect((await development.send(`http://loopback.test:${loopback.port}/`, {}, '{}', ['*.test'])).transport).toEqual({ kind: 'response', status: 200 });
  });
});
