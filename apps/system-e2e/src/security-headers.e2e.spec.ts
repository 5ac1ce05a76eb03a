/**
 * Goal: every answer of `/v2` and `/backoffice/v1` (successes and errors from guards, the body
 * parser, the router and the services alike) tells caches not to keep it and browsers not to
 * sniff it, and demands HTTPS (HSTS) exactly when the request came over TLS. Method: the real
 * gateway started with the test client's address as its trusted proxy, so a request saying
 * `X-Forwarded-Proto: https` stands for one a TLS-terminating proxy forwarded.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createOperator, rawRequest, SignedClient, SystemUnderTest, workspaceRoot, type BackofficeClient, type TestResponse } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

type Call = (extraHeaders: Record<string, string>) => Promise<TestResponse>;

describe('security headers on API answers', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let operator: BackofficeClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start({ env: { gateway: { GATEWAY_TRUSTED_PROXIES: '127.0.0.1,::1' } } });
    merchant = await system.createClient('Headers shop');
    operator = await createOperator(system);
  });
  afterAll(async () => system?.stop());

  const signed =
    (method: 'GET' | 'POST', path: string, body?: object): Call =>
    (headers) =>
      merchant.request({ method, path, body, headers });
  const raw =
    (method: string, path: string, headers: Record<string, string>, body = Buffer.alloc(0)): Call =>
    (extra) =>
      rawRequest(system.gatewayUrl, method, path, { ...headers, ...extra }, body);

  const calls: Array<[string, number, Call]> = [
    [
      '201 a created pay-in',
      201,
      (headers) => merchant.request({ method: 'POST', path: '/v2/payments/incoming', body: incomingPayment(newOrderId('headers')), headers }),
    ],
    ['200 the merchant profile', 200, signed('GET', '/v2/merchant')],
    ['404 an unknown order', 404, signed('GET', `/v2/payments/status/${newOrderId('missing')}`)],
    ['400 an invalid body', 400, signed('POST', '/v2/payments/incoming', { order_id: 'x' })],
    ['401 no signature', 401, raw('GET', '/v2/merchant', {})],
    ['413 a body over 64 KiB', 413, raw('POST', '/v2/payments/incoming', { 'content-type': 'application/json' }, Buffer.alloc(70 * 1024, 0x20))],
    ['415 a body that is not JSON', 415, raw('POST', '/v2/payments/incoming', { 'content-type': 'text/plain' }, Buffer.from('hello'))],
    ['404 an unknown route', 404, raw('GET', '/v2/no-such-endpoint', {})],
    ['400 a path that is not percent-encoded UTF-8', 400, raw('GET', '/v2/payments/status/%E0%A4%A', {})],
    [
      '200 an operator read',
      200,
      (headers) => operator.request('GET', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/methods`, undefined, headers),
    ],
    ['401 a bad bearer token', 401, raw('GET', '/backoffice/v1/agent/orders', { authorization: 'Bearer not-a-token' })],
    ['404 an unknown back-office route', 404, (headers) => operator.request('GET', '/backoffice/v1/no-such-endpoint', undefined, headers)],
    ['200 the OpenAPI description, unsigned', 200, raw('GET', '/v2/openapi.json', {})],
    ['200 the API docs page, unsigned', 200, raw('GET', '/v2/docs', {})],
  ];

  it.each(calls)('puts no-store and nosniff on %s, with HSTS only when it came over TLS', async (_case, status, call) => {
    const plain = await call({});
    expect(plain.status).toBe(status);
    expect([plain.headers.get('cache-control'), plain.headers.get('x-content-type-options'), plain.headers.get('strict-transport-security')]).toEqual([
      'no-store',
      'nosniff',
      null,
    ]);

    const overTls = await call({ 'x-forwarded-proto': 'https' });
    expect(overTls.status).toBe(status);
    expect([overTls.headers.get('cache-control'), overTls.headers.get('x-content-type-options'), overTls.headers.get('strict-transport-security')]).toEqual([
      'no-store',
      'nosniff',
      'max-age=31536000',
    ]);
  });

  it('serves the checked-in OpenAPI description and a docs page whose scripts and styles all come from the gateway', async () => {
    const description = await rawRequest(system.gatewayUrl, 'GET', '/v2/openapi.json', {}, Buffer.alloc(0));
    expect(description.headers.get('content-type')).toMatch(/^application\/json/);
    expect(description.text).toBe(readFileSync(join(workspaceRoot, 'openapi.json'), 'utf8'));

    const page = await rawRequest(system.gatewayUrl, 'GET', '/v2/docs', {}, Buffer.alloc(0));
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.text.match(/(?:src|href)="[^"]*"/g)).toEqual([
      'href="/v2/docs/swagger-ui.css"',
      'src="/v2/docs/swagger-ui-bundle.js"',
      'src="/v2/docs/init.js"',
    ]);
    expect(page.text).not.toMatch(/https?:\/\//);
    for (const [asset, type] of [
      ['/v2/docs/swagger-ui.css', /^text\/css/],
      ['/v2/docs/swagger-ui-bundle.js', /^text\/javascript/],
      ['/v2/docs/init.js', /^text\/javascript/],
    ] as const) {
      const answer = await rawRequest(system.gatewayUrl, 'GET', asset, {}, Buffer.alloc(0));
      expect([asset, answer.status, answer.headers.get('content-type')]).toEqual([asset, 200, expect.stringMatching(type)]);
      expect(answer.text.length).toBeGreaterThan(20);
    }
  });
});
