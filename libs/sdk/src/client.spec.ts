import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { MerchantClient, type PaymentOrder } from './client';
import { isMerchantApiError, MerchantApiError } from './errors';
import { MerchantNetworkError } from './retry';
import { signRequest } from './signing';

const MERCHANT_ID = 'mch_0123456789abcdef01234567';
const SECRET = 'sk_Zm9yLWRvY3Mtb25seS1ub3QtYS1yZWFsLXNlY3JldA';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A real HTTP server on 127.0.0.1 that answers each request with the next handler of a script. */
async function scriptedServer(
  ...handlers: Array<(request: Received, response: ServerResponse) => void>
): Promise<{ url: string; received: Received[]; server: Server }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const entry = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks) };
      received.push(entry);
      const handler = handlers[Math.min(received.length - 1, handlers.length - 1)];
      handler(entry, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received, server };
}

const answer =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  (_request: Received, response: ServerResponse) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
  };
const unavailable = answer(503, { error: { code: 'SERVICE_UNAVAILABLE', message: 'no outcome in time', details: [] }, request_id: 'req_1' });
const order = { order_id: 'shop/2026:17', status: 'PENDING' } as PaymentOrder;

/** Whether a request the server received carries a valid signature of exactly the bytes it received. */
function signedCorrectly(request: Received): boolean {
  const timestamp = String(request.headers['x-timestamp']);
  return (
    request.headers['x-api-key'] === MERCHANT_ID &&
    signRequest({ secret: SECRET, timestamp, wirePath: request.url, body: request.body }).signature === request.headers['x-signature']
  );
}

describe('MerchantClient against a real local HTTP server', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
  });
  const start = async (...handlers: Parameters<typeof scriptedServer>) => {
    const started = await scriptedServer(...handlers);
    servers.push(started.server);
    const client = new MerchantClient({
      baseUrl: started.url,
      merchantId: MERCHANT_ID,
      apiSecret: SECRET,
      retry: { attempts: 4, initialDelayMs: 1, maxDelayMs: 2_000 },
    });
    return { ...started, client };
  };

  it('retries a 503 with the same order_id and the same body bytes, signed again, and returns the 201', async () => {
    const { client, received } = await start(unavailable, unavailable, answer(201, order));
    const created = await client.payments.createIncoming({
      order_id: 'shop/2026:17',
      amount: 1500.5,
      currency: 'RUB',
      country: 'RU',
      callback_url: 'https://shop.example/cb',
    });
    expect(created).toEqual(order);
    expect(received).toHaveLength(3);
    expect(new Set(received.map((request) => request.body.toString('utf8')))).toEqual(new Set([received[0].body.toString('utf8')]));
    expect(JSON.parse(received[2].body.toString('utf8')).order_id).toBe('shop/2026:17');
    expect(received.every(signedCorrectly)).toBe(true);
  });

  it('waits out a 429 Retry-After before the next attempt', async () => {
    const { client, received } = await start(
      answer(429, { error: { code: 'RATE_LIMITED', message: 'slow down', details: [] }, request_id: 'req_2' }, { 'retry-after': '1' }),
      answer(200, order),
    );
    const startedAt = Date.now();
    await expect(client.payments.status('shop/2026:17')).resolves.toEqual(order);
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1_000);
    expect(received.map((request) => request.url)).toEqual(['/v2/payments/status/shop%2F2026%3A17', '/v2/payments/status/shop%2F2026%3A17']);
  });

  it('retries a dropped connection of a create, but not of a secret rotation, which may have happened', async () => {
    const drop = (request: Received, response: ServerResponse) => response.socket?.destroy();
    const create = await start(drop, answer(201, order));
    await expect(
      create.client.payments.createIncoming({ order_id: 'A-1', amount: 100, currency: 'RUB', country: 'RU', callback_url: 'https://shop.example/cb' }),
    ).resolves.toEqual(order);
    expect(create.received).toHaveLength(2);

    const rotation = await start(drop, answer(201, { api_secret: 'sk_new' }));
    await expect(rotation.client.merchant.rotateApiSecret()).rejects.toBeInstanceOf(MerchantNetworkError);
    expect(rotation.received).toHaveLength(1);
  });

  it('retries a read whose answer does not come within timeoutMs', async () => {
    const silent = () => undefined;
    const started = await scriptedServer(silent, answer(200, order));
    servers.push(started.server);
    const impatient = new MerchantClient({
      baseUrl: started.url,
      merchantId: MERCHANT_ID,
      apiSecret: SECRET,
      timeoutMs: 300,
      retry: { attempts: 2, initialDelayMs: 1 },
    });
    await expect(impatient.payments.status('shop/2026:17')).resolves.toEqual(order);
    expect(started.received).toHaveLength(2);
    started.server.closeAllConnections();
  });

  it('gives up after the configured attempts with the typed error of the last answer', async () => {
    const { client, received } = await start(unavailable);
    const failure = await client.payments.status('A-1').catch((error: unknown) => error);
    expect(isMerchantApiError(failure, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect(received).toHaveLength(4);
  });

  it('does not retry a refusal, and types it by code', async () => {
    const duplicate = {
      error: { code: 'DUPLICATE_ORDER', message: 'order_id A-1 exists with another amount', details: [{ field: 'amount', issue: 'differs' }] },
      request_id: 'req_3',
    };
    const { client, received } = await start(answer(409, duplicate));
    const failure = (await client.payments
      .createIncoming({ order_id: 'A-1', amount: 1, currency: 'RUB', country: 'RU', callback_url: 'https://shop.example/cb' })
      .catch((error: unknown) => error)) as MerchantApiError;
    expect(failure).toBeInstanceOf(MerchantApiError);
    expect({ code: failure.code, status: failure.status, message: failure.message, details: failure.details, requestId: failure.requestId }).toEqual({
      code: 'DUPLICATE_ORDER',
      status: 409,
      message: 'order_id A-1 exists with another amount',
      details: [{ field: 'amount', issue: 'differs' }],
      requestId: 'req_3',
    });
    expect(isMerchantApiError(failure, 'ORDER_NOT_FOUND')).toBe(false);
    expect(received).toHaveLength(1);
  });

  it('returns a non-JSON answer (a CSV report) as text, and signs the path without its query string', async () => {
    const csv = 'order_id,amount\nA-1,1500.50\n';
    const { client, received } = await start((_request, response) => response.writeHead(200, { 'content-type': 'text/csv; charset=utf-8' }).end(csv));
    await expect(client.request<string>('GET', '/v2/merchant/reconciliation?date=2026-01-01&currency=RUB')).resolves.toBe(csv);
    expect(received[0].url).toBe('/v2/merchant/reconciliation?date=2026-01-01&currency=RUB');
    expect(signedCorrectly(received[0])).toBe(true);
    expect(
      signRequest({ secret: SECRET, timestamp: String(received[0].headers['x-timestamp']), wirePath: '/v2/merchant/reconciliation', body: '' }).signature,
    ).toBe(received[0].headers['x-signature']);
  });

  it('pages the webhook delivery log through its query string, which is sent but not signed', async () => {
    const pages = [
      { data: [{ delivery_id: 'msg_2' }], has_more: true, next_cursor: 'c1' },
      { data: [{ delivery_id: 'msg_1' }], has_more: false, next_cursor: null },
    ];
    const { client, received } = await start(...pages.map((page) => answer(200, page)));
    const seen: string[] = [];
    for await (const delivery of client.webhooks.deliveries({ status: 'succeeded', limit: 1 })) seen.push(delivery.delivery_id);
    expect(seen).toEqual(['msg_2', 'msg_1']);
    expect(received.map((request) => [request.method, request.url])).toEqual([
      ['GET', '/v2/webhooks/deliveries?status=succeeded&limit=1'],
      ['GET', '/v2/webhooks/deliveries?status=succeeded&limit=1&cursor=c1'],
    ]);
    expect(received.every(signedCorrectly)).toBe(true);
  });

  it('iterates every page of a list, sending the same filters with each next_cursor', async () => {
    const pages = [
      { data: [{ order_id: 'A-3' }, { order_id: 'A-2' }], has_more: true, next_cursor: 'c1' },
      { data: [{ order_id: 'A-1' }], has_more: true, next_cursor: 'c2' },
      { data: [], has_more: false, next_cursor: null },
    ];
    const { client, received } = await start(...pages.map((page) => answer(200, page)));
    const seen: string[] = [];
    for await (const item of client.payments.listIncoming({ status: 'SUCCEEDED', limit: 2 })) seen.push(item.order_id);
    expect(seen).toEqual(['A-3', 'A-2', 'A-1']);
    expect(received.map((request) => JSON.parse(request.body.toString('utf8')))).toEqual([
      { status: 'SUCCEEDED', limit: 2 },
      { status: 'SUCCEEDED', limit: 2, cursor: 'c1' },
      { status: 'SUCCEEDED', limit: 2, cursor: 'c2' },
    ]);
    expect(received.every((request) => request.url === '/v2/payments/incoming/list')).toBe(true);
  });
});
