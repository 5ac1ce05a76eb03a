/**
 * Goal: the gateway's rate limits hold across replicas and refuse cleanly (docs/operations/gateway.md). Method: two
 * real gateway replicas share the merchant buckets in the gateway's PostgreSQL; small limits make
 * a burst exceed them. Refused requests must get 429 RATE_LIMITED with Retry-After and the
 * RateLimit-* headers and leave no order behind. Unauthenticated routes are limited per client
 * address, their bodies capped before they are read, and callback URLs must pass the destination
 * rules (ports, the merchant's allow-list) before any order exists.
 */
import { request as httpRequest } from 'node:http';
import { BackofficeClient, createOperator, rawRequest, SignedClient, SystemUnderTest, type TestResponse } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

const MERCHANT_RATE = 5;
const MERCHANT_BURST = 10;
const ADDRESS_RATE = 2;
const ADDRESS_BURST = 6;
const AUTH_FAILURES_BURST = 20;

describe('rate limits and callback destinations', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;

  beforeAll(async () => {
    const gateway = {
      GATEWAY_RATE_LIMIT_MERCHANT_PER_SECOND: String(MERCHANT_RATE),
      GATEWAY_RATE_LIMIT_MERCHANT_BURST: String(MERCHANT_BURST),
      GATEWAY_RATE_LIMIT_ADDRESS_PER_SECOND: String(ADDRESS_RATE),
      GATEWAY_RATE_LIMIT_ADDRESS_BURST: String(ADDRESS_BURST),
      GATEWAY_RATE_LIMIT_AUTH_FAILURES_PER_SECOND: '1',
      GATEWAY_RATE_LIMIT_AUTH_FAILURES_BURST: String(AUTH_FAILURES_BURST),
      // The production port list, not the harness's (its receivers use ephemeral ports).
      CALLBACK_ALLOWED_PORTS: '443,8443',
    };
    system = await SystemUnderTest.start({ env: { gateway } });
    await system.startService('gateway-2');
    operator = await createOperator(system);
  });
  afterAll(async () => system?.stop());

  const ordersIn = async (merchantId: string, orderIds: string[]) =>
    (
      await system.query<{ order_id: string }>('payments', 'SELECT order_id FROM payment_orders WHERE merchant_id = $1 AND order_id = ANY($2)', [
        merchantId,
        orderIds,
      ])
    ).map((row) => row.order_id);
  /** A fixed window, not a condition: the token buckets refill with time. */
  const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  /**
   * Requests in waves of ten at once until three are refused (at most `waves` waves): a bucket that
   * refills a token or two a second is not outrun by one-by-one requests on a loaded machine.
   */
  async function wavesUntilRefused(send: (index: number) => Promise<TestResponse>, firstIndex: number, waves: number): Promise<TestResponse[]> {
    const answers: TestResponse[] = [];
    for (let wave = 0; wave < waves && answers.filter((answer) => answer.status === 429).length < 3; wave += 1) {
      answers.push(...(await Promise.all(Array.from({ length: 10 }, (_, offset) => send(firstIndex + answers.length + offset)))));
    }
    return answers;
  }

  function expectRateLimited(response: TestResponse, burst: number): void {
    expect(response.status).toBe(429);
    expect(response.body.error.code).toBe('RATE_LIMITED');
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(response.headers.get('ratelimit-limit')).toBe(String(burst));
    expect(response.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(response.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(1);
  }

  it('shares one merchant bucket across two replicas: at most rate x time + burst admitted, the rest 429 with the headers and no order', async () => {
    const first = await system.createClient('Burst shop');
    const second = new SignedClient(system.urlOf('gateway-2'), first.credentials);
    const orderIds = Array.from({ length: 40 }, () => newOrderId('burst'));
    const started = performance.now();
    const responses = await Promise.all(
      orderIds.map((orderId, index) => (index % 2 === 0 ? first : second).post('/v2/payments/incoming', incomingPayment(orderId))),
    );
    const seconds = (performance.now() - started) / 1000;

    const admitted = orderIds.filter((_orderId, index) => responses[index].status === 201);
    const refused = orderIds.filter((_orderId, index) => responses[index].status === 429);
    expect(admitted.length + refused.length).toBe(orderIds.length);
    expect(admitted.length).toBeGreaterThanOrEqual(MERCHANT_BURST);
    expect(admitted.length).toBeLessThanOrEqual(Math.floor(MERCHANT_RATE * seconds + MERCHANT_BURST));
    expect(refused.length).toBeGreaterThan(0);
    // Both replicas refused some: the bucket is shared, not per process.
    expect(new Set(responses.map((response, index) => (response.status === 429 ? index % 2 : -1)).filter((replica) => replica >= 0)).size).toBe(2);
    for (const response of responses.filter((candidate) => candidate.status === 429)) expectRateLimited(response, MERCHANT_BURST);
    const success = responses.find((response) => response.status === 201);
    expect(success?.headers.get('ratelimit-limit')).toBe(String(MERCHANT_BURST));
    expect(success?.headers.get('ratelimit-remaining')).toMatch(/^\d+$/);

    // Nothing half-written: every admitted order exists once, no refused one at all.
    expect((await ordersIn(first.credentials.merchantId, orderIds)).sort()).toEqual([...admitted].sort());
  });

  it('charges the merchant only after the signature is verified: a forged flood leaves its bucket full and gets its address refused', async () => {
    const merchant = await system.createClient('Forged flood shop');
    const statuses: number[] = [];
    const refusals: TestResponse[] = [];
    const forge = () => merchant.request({ method: 'GET', path: '/v2/merchant/balances', headers: { 'x-signature': '0'.repeat(64) } });
    // The burst one by one: each finds a token, so each is answered 401.
    for (let index = 0; index < AUTH_FAILURES_BURST; index += 1) statuses.push((await forge()).status);
    // Then waves until three are refused (the bucket refills 1 token a second).
    for (const forged of await wavesUntilRefused(forge, 0, 30)) {
      statuses.push(forged.status);
      if (forged.status === 429) refusals.push(forged);
    }
    // Every failure up to the burst is answered 401; once one finds the bucket empty, the replica refuses the address.
    expect(statuses.slice(0, AUTH_FAILURES_BURST)).toEqual(Array(AUTH_FAILURES_BURST).fill(401));
    expect(statuses.filter((status) => status !== 401 && status !== 429)).toEqual([]);
    expect(refusals.length).toBeGreaterThanOrEqual(3);
    for (const refusal of refusals) expectRateLimited(refusal, AUTH_FAILURES_BURST);

    // The other replica has seen no failure from this address: the genuine request passes, and
    // the merchant's bucket lost one token to it, none to the forgeries.
    const genuine = await new SignedClient(system.urlOf('gateway-2'), merchant.credentials).get('/v2/merchant/balances');
    expect(genuine.status).toBe(200);
    expect(genuine.headers.get('ratelimit-remaining')).toBe(String(MERCHANT_BURST - 1));
    await pause(2_000);
  });

  it("applies an operator's per-merchant override on every replica at once, and falls back to the global figures when it is removed", async () => {
    const merchant = await system.createClient('Override shop');
    const { merchantId } = merchant.credentials;
    const path = `/backoffice/v1/merchants/${merchantId}/rate-limit`;
    expect((await operator.request('GET', path)).body).toMatchObject({ rate_per_second: MERCHANT_RATE, burst: MERCHANT_BURST, source: 'default' });
    const invalid = await operator.request('PUT', path, { rate_per_second: 0, burst: 2.5 });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['burst', 'rate_per_second']);
    const set = await operator.request('PUT', path, { rate_per_second: 1, burst: 3 });
    expect(set.body).toMatchObject({ rate_per_second: 1, burst: 3, source: 'override', updated_by: expect.any(String) });

    const second = new SignedClient(system.urlOf('gateway-2'), merchant.credentials);
    const started = performance.now();
    const responses = await Promise.all(Array.from({ length: 8 }, (_, index) => (index % 2 === 0 ? merchant : second).get('/v2/merchant/balances')));
    const seconds = (performance.now() - started) / 1000;
    const admitted = responses.filter((response) => response.status === 200);
    expect(admitted.length).toBeGreaterThanOrEqual(3);
    expect(admitted.length).toBeLessThanOrEqual(Math.floor(1 * seconds + 3));
    for (const response of responses.filter((candidate) => candidate.status !== 200)) expectRateLimited(response, 3);

    expect((await operator.request('DELETE', path)).body).toMatchObject({ burst: MERCHANT_BURST, source: 'default', updated_by: null });
    await pause(1_100);
    const after = await merchant.get('/v2/merchant/balances');
    expect(after.headers.get('ratelimit-limit')).toBe(String(MERCHANT_BURST));
  });

  it('refuses an oversized body on the payer page before reading it (413), with the route limit in the message', async () => {
    // Announces 10 MB, sends 1 KB, and waits: the answer comes while the body is still unsent.
    const announced = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const url = new URL(`${system.gatewayUrl}/pay/some-token/details`);
      const outgoing = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path: url.pathname,
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(10 * 1024 * 1024) },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
          response.on('end', () => {
            resolve({ status: response.statusCode ?? 0, body: text });
            outgoing.destroy();
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.write(Buffer.alloc(1024, 97));
    });
    expect(announced.status).toBe(413);
    expect(JSON.parse(announced.body).error.code).toBe('PAYLOAD_TOO_LARGE');

    const sent = await rawRequest(
      system.gatewayUrl,
      'POST',
      '/pay/some-token/paid',
      { 'content-type': 'application/x-www-form-urlencoded' },
      Buffer.alloc(2048, 97),
    );
    expect(sent.status).toBe(413);
    expect(sent.body.error.message).toContain('1024 bytes');
  });

  it('limits the payer page per client address, and a client cannot pick a fresh bucket with X-Forwarded-For', async () => {
    await pause((ADDRESS_BURST / ADDRESS_RATE) * 1000 + 500);
    const responses: TestResponse[] = [];
    // Each request names another client in X-Forwarded-For, from an untrusted peer: one bucket.
    const payerPage = (index: number) =>
      rawRequest(
        index % 2 === 0 ? system.gatewayUrl : system.urlOf('gateway-2'),
        'GET',
        '/pay/not-a-real-token',
        { 'x-forwarded-for': `198.51.100.${index % 250}` },
        Buffer.alloc(0),
      );
    // Within the burst one by one, then waves until three are refused (the bucket refills 2 tokens a second).
    for (let index = 0; index < ADDRESS_BURST - 1; index += 1) responses.push(await payerPage(index));
    responses.push(...(await wavesUntilRefused(payerPage, responses.length, 20)));
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
    expect(statuses.slice(0, ADDRESS_BURST - 1)).not.toContain(429);
    for (const response of responses.filter((candidate) => candidate.status === 429)) expectRateLimited(response, ADDRESS_BURST);
    expect(responses.find((response) => response.status !== 429)?.headers.get('ratelimit-limit')).toBe(String(ADDRESS_BURST));
  });

  it('charges every IPv6 address of one /64 to one bucket: a flood from a /64 is refused, another /64 is not', async () => {
    // A replica behind a proxy it trusts (the test's loopback), so X-Forwarded-For names the client.
    await system.startService('gateway-proxied', { GATEWAY_TRUSTED_PROXIES: '127.0.0.1' });
    const fromAddress = (address: string) =>
      rawRequest(system.urlOf('gateway-proxied'), 'GET', '/pay/not-a-real-token', { 'x-forwarded-for': address }, Buffer.alloc(0));
    const flood: TestResponse[] = [];
    for (let index = 1; index <= ADDRESS_BURST + 4; index += 1) flood.push(await fromAddress(`2001:db8:64:1:${index.toString(16)}::${index}`));
    const statuses = flood.map((response) => response.status);
    expect(statuses.filter((status) => status === 429).length).toBeGreaterThanOrEqual(3);
    for (const response of flood.filter((candidate) => candidate.status === 429)) expectRateLimited(response, ADDRESS_BURST);
    expect((await fromAddress('2001:db8:64:2::1')).status).toBe(404);
    await system.terminate('gateway-proxied');
  });

  it('refuses a callback URL on a port not allowed or off the merchant allow-list with VALIDATION_ERROR, and creates no order', async () => {
    const merchant = await system.createClient('Allow-listed shop');
    const { merchantId } = merchant.credentials;
    const put = await operator.request('PUT', `/backoffice/v1/merchants/${merchantId}/callback-allow-list`, { entries: ['shop.example', '*.shop.example'] });
    expect(put.status).toBe(200);
    expect(put.body.entries).toEqual(['shop.example', '*.shop.example']);
    const invalid = await operator.request('PUT', `/backoffice/v1/merchants/${merchantId}/callback-allow-list`, { entries: ['https://shop.example'] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('VALIDATION_ERROR');

    const cases = [
      { url: 'https://shop.example:22/cb', issue: /port 22 is not allowed/ },
      { url: 'https://elsewhere.example/cb', issue: /not on this merchant's callback allow-list/ },
      { url: 'http://shop.example/cb', issue: /must use https/ },
    ];
    const refusedIds: string[] = [];
    for (const { url, issue } of cases) {
      const orderId = newOrderId('dest');
      refusedIds.push(orderId);
      const response = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { callback_url: url }));
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('VALIDATION_ERROR');
      expect(response.body.error.details).toEqual([{ field: 'callback_url', issue: expect.stringMatching(issue) }]);
    }
    const patched = await merchant.request({ method: 'PATCH', path: '/v2/merchant', body: { default_callback_url: 'https://elsewhere.example/cb' } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details[0].field).toBe('default_callback_url');

    const acceptedId = newOrderId('dest-ok');
    expect((await merchant.post('/v2/payments/incoming', incomingPayment(acceptedId, { callback_url: 'https://pay.shop.example:8443/cb' }))).status).toBe(201);
    expect(await ordersIn(merchantId, [...refusedIds, acceptedId])).toEqual([acceptedId]);
  });
});
