/**
 * Goal: malformed requests (wrong types, missing and unknown fields, oversized and malformed bodies) get a 4xx
 * with a VALIDATION_ERROR body naming the field, never a 5xx, and create nothing. Method:
 * correctly signed requests whose bodies break one rule each.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { createOperator, eventually, registerAgent, SignedClient, SystemUnderTest, type BackofficeClient, type RegisteredAgent } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('bad input on POST /v2/payments/incoming', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    merchant = await system.createClient('Fuzzed shop');
  });
  afterAll(async () => system?.stop());

  /** Builds a raw body with one field's JSON text replaced, so literals such as 1e309 reach the server untouched. */
  function bodyWith(field: string, jsonLiteral: string): string {
    const base = incomingPayment(newOrderId('bad')) as Record<string, unknown>;
    const parts = Object.entries(base).map(([key, value]) => `${JSON.stringify(key)}: ${key === field ? jsonLiteral : JSON.stringify(value)}`);
    if (!(field in base)) parts.push(`${JSON.stringify(field)}: ${jsonLiteral}`);
    return `{ ${parts.join(', ')} }`;
  }

  async function expectValidationError(body: string, field: string) {
    const response = await merchant.post('/v2/payments/incoming', body);
    expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status: 400, code: 'VALIDATION_ERROR' });
    expect(response.body.error.details.map((detail: { field: string }) => detail.field)).toContain(field);
  }

  describe('amounts', () => {
    it.each(['0', '-1', '-0', '0.001', '1e-7', '1e309', '9007199254740993', '"10.00"', 'null', 'true', '[1500]', '{"value": 1}', '1500.505'])(
      'refuses amount %s',
      (literal) => expectValidationError(bodyWith('amount', literal), 'amount'),
    );

    it('refuses an amount outside the method limits', () => expectValidationError(bodyWith('amount', '5'), 'amount'));

    it('refuses a duplicated amount key with two values', async () => {
      const body = bodyWith('amount', '1500').replace('{ ', '{ "amount": 2000, ');
      await expectValidationError(body, 'body');
    });

    it('accepts exponent form with an allowed value', async () => {
      const response = await merchant.post('/v2/payments/incoming', bodyWith('amount', '1.5E3'));
      expect(response.status).toBe(201);
      expect(response.body.amount).toBe(1500);
    });
  });

  describe('identifiers', () => {
    it.each([
      ['empty', '""'],
      ['65 characters', JSON.stringify('a'.repeat(65))],
      ['10 KB', JSON.stringify('a'.repeat(10_240))],
      ['non-ASCII look-alike', JSON.stringify('оrder-1')],
      ['zero-width character', JSON.stringify('order\u200b1')],
      ['leading space', JSON.stringify(' order-1')],
      ['NUL byte', JSON.stringify('order\u00001')],
      ['percent sign', JSON.stringify('order%201')],
      ['number', '12345'],
    ])('refuses an order_id that is %s', (_name, literal) => expectValidationError(bodyWith('order_id', literal), 'order_id'));

    it.each([
      ['currency', '"rub"'],
      ['currency', '"XXX"'],
      ['currency', '"EUR"'],
      ['country', '"Russia"'],
      ['country', '"KZ"'],
    ])('refuses %s %s', (field, literal) => expectValidationError(bodyWith(field, literal), field));
  });

  describe('callback URLs', () => {
    it.each([
      '"ftp://shop.example/cb"',
      '"/relative/path"',
      '"javascript:alert(1)"',
      '"http://shop.example/cb"',
      JSON.stringify(`https://shop.example/${'a'.repeat(2100)}`),
      '42',
    ])('refuses callback_url %s', (literal) => expectValidationError(bodyWith('callback_url', literal), 'callback_url'));
  });

  describe('body shape', () => {
    it.each([
      ['not JSON', '{"order_id": '],
      ['an array', '[{"order_id": "a"}]'],
      ['a string', '"hello"'],
      ['a number', '42'],
      ['null', 'null'],
    ])('refuses a body that is %s', (_name, body) => expectValidationError(body, 'body'));

    it('refuses an empty body', async () => {
      const response = await merchant.request({ method: 'POST', path: '/v2/payments/incoming' });
      expect([response.status, response.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    });

    it('names every missing field at once', async () => {
      const response = await merchant.post('/v2/payments/incoming', {});
      expect(response.status).toBe(400);
      expect(response.body.error.details.map((detail: { field: string }) => detail.field).sort()).toEqual([
        'amount',
        'callback_url',
        'country',
        'currency',
        'order_id',
      ]);
    });

    it('refuses unknown fields', () => expectValidationError(bodyWith('amount_cents', '150050'), 'amount_cents'));

    it('answers a huge body with 413', async () => {
      const response = await merchant.post('/v2/payments/incoming', bodyWith('callback_url', JSON.stringify(`https://x.example/${'a'.repeat(1024 * 1024)}`)));
      expect([response.status, response.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    });
  });

  // Found by npm run fuzz (docs/operations/fuzzing.md): null reached overlapMsOf and answered 500.
  it.each(['/v2/merchant/api-secret/rotate', '/v2/merchant/webhook-secret/rotate'])(
    'takes overlap_hours null on %s as absent, as any null field',
    async (path) => {
      const rotating = await system.createClient('Rotating shop');
      const response = await rotating.post(path, '{"overlap_hours": null}');
      expect(response.status).toBe(201);
      expect(response.body.previous_secret_valid_until).toEqual(expect.any(String));
    },
  );

  it('created no order for any of the refused requests', async () => {
    const rows = await system.query<{ count: string }>('payments', `SELECT count(*) FROM payment_orders`);
    expect(Number(rows[0].count)).toBe(1);
  });

  it('answers unknown routes and methods with the error body', async () => {
    const response = await merchant.get('/v2/nothing-here');
    expect([response.status, response.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });
});

/**
 * Goal: bad input elsewhere than endpoint 1 gets the error of docs/api/errors.md, never
 * a 5xx or a wrong success: keys that are names of Object.prototype, malformed ids in every
 * path, a payout retried with another account, receipts up to their own limit, oversized
 * bodies answered to clients that send the whole body, and methods a path does not have.
 * Method: the real system; a merchant with fee-free RUB methods, funded by a confirmed pay-in.
 */
describe('bad input across the API', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let agent: RegisteredAgent;
  let operator: BackofficeClient;

  const PNG_HEADER = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  const payout = (orderId: string, accountNumber = '4111 1111 1111 1111') => ({
    ...incomingPayment(orderId, { amount: 200 }),
    method: 'bank_card',
    account_number: accountNumber,
  });

  beforeAll(async () => {
    system = await SystemUnderTest.start({ env: { gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '30000' } } });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    merchant = await system.createClient('Prototype shop');
    const common = {
      country: 'RU',
      currency: 'RUB',
      fee_rate_basis_points: 0,
      fee_fixed_minor: '0',
      min_amount_minor: '100',
      max_amount_minor: '100000000',
      expiry_minutes: 30,
    };
    const methods = await operator.request('PUT', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/methods`, {
      entries: [
        { method: 'bank_card', direction: 'incoming', ...common },
        { method: 'bank_card', direction: 'outgoing', ...common },
      ],
    });
    expect(methods.status).toBe(200);
    const fundingId = newOrderId('funding');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(fundingId, { amount: 10_000 }));
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${fundingId}/confirm`, {})).status).toBe(200);
    await eventually(
      async () => (await merchant.get('/v2/merchant/balances')).body.settlement,
      (settlement: Array<{ currency: string; available: number }>) => settlement.some((entry) => entry.currency === 'RUB' && entry.available === 10_000),
      'the funding pay-in credited',
      20_000,
    );
  });
  afterAll(async () => system?.stop());

  const fieldsOf = (body: { error?: { details?: Array<{ field: string }> } }) => (body.error?.details ?? []).map((detail) => detail.field);

  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'])('refuses withdrawal currency %s as a VALIDATION_ERROR', async (currency) => {
    const body = `{"order_id": ${JSON.stringify(newOrderId('w'))}, "amount": 10, "currency": ${JSON.stringify(currency)}, "address": "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"}`;
    const response = await merchant.post('/v2/merchant/withdrawals', body);
    expect([response.status, response.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(fieldsOf(response.body)).toContain('currency');
  });

  it.each(['currency', 'country', 'method'])('refuses a payout %s that is a name of Object.prototype', async (field) => {
    for (const name of ['constructor', '__proto__', 'toString']) {
      const response = await merchant.post('/v2/payments/outgoing', { ...payout(newOrderId('proto')), [field]: name });
      expect([field, name, response.status, response.body.error?.code]).toEqual([field, name, 400, 'VALIDATION_ERROR']);
    }
  });

  it.each([['/v2/payments/incoming/list'], ['/v2/payments/outgoing/list'], ['/v2/merchant/withdrawals/list'], ['/v2/disputes/list']])(
    'refuses __proto__, constructor and toString as filter names on %s',
    async (path) => {
      for (const name of ['__proto__', 'constructor', 'toString', 'foo']) {
        const response = await merchant.post(path, `{${JSON.stringify(name)}: 1}`);
        expect([name, response.status, response.body.error?.code]).toEqual([name, 400, 'VALIDATION_ERROR']);
        expect(fieldsOf(response.body)).toEqual([name]);
      }
    },
  );

  // Found by npm run fuzz on the back-office API (docs/operations/fuzzing.md, Findings).
  it('takes lifetime_days null on POST /backoffice/v1/operator-credentials as absent, as any null field', async () => {
    const response = await operator.request('POST', '/backoffice/v1/operator-credentials', { name: 'Null lifetime', lifetime_days: null });
    expect([response.status, typeof response.body.token]).toEqual([201, 'string']);
  });

  it('refuses __proto__ as a filter of an agent list in the query string', async () => {
    const response = await agent.client.request('GET', '/backoffice/v1/agent/orders?__proto__=1');
    expect([response.status, response.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it.each([
    ['a NUL byte', 'order%001', 'ORDER_NOT_FOUND'],
    ['65 characters', 'a'.repeat(65), 'ORDER_NOT_FOUND'],
    // Longer than any path parameter may be: the router answers before any route.
    ['10 KB', 'a'.repeat(10_240), 'NOT_FOUND'],
  ])('answers the account-number reveal of an order id with %s as not found, every time', async (_name, orderId, code) => {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const response = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/account-number`);
      expect([response.status, response.body.error?.code]).toEqual([404, code]);
    }
    const badMerchant = await agent.client.request('POST', `/backoffice/v1/agent/orders/mch_%00/${newOrderId()}/account-number`);
    expect([badMerchant.status, badMerchant.body.error?.code]).toEqual([404, 'ORDER_NOT_FOUND']);
  });

  it.each([
    ['order_id=order%001', 'order_id'],
    [`order_id=${'a'.repeat(65)}`, 'order_id'],
    ['merchant_id=mch_%00', 'merchant_id'],
    ['agent_id=x', 'agent_id'],
    ['order_id=A&order_id=B', 'order_id'],
    ['limit=0', 'limit'],
    ['__proto__=1', '__proto__'],
  ])('refuses the account-number reveal log filter %s as a VALIDATION_ERROR', async (query, field) => {
    const response = await operator.request('GET', `/backoffice/v1/account-number-reveals?${query}`);
    expect([response.status, response.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(fieldsOf(response.body)).toEqual([field]);
  });

  it('refuses a payout retried with the same order_id and another account number as DUPLICATE_ORDER', async () => {
    const orderId = newOrderId('payout');
    const first = await merchant.post('/v2/payments/outgoing', payout(orderId));
    expect(first.status).toBe(201);
    expect((await merchant.post('/v2/payments/outgoing', payout(orderId))).status).toBe(201);
    const otherAccount = await merchant.post('/v2/payments/outgoing', payout(orderId, '5500 0000 0000 0004'));
    expect([otherAccount.status, otherAccount.body.error?.code]).toEqual([409, 'DUPLICATE_ORDER']);
    expect(otherAccount.text).not.toContain('5500 0000 0000 0004');
  });

  it('shows agents neither callback_url nor redirect_url', async () => {
    const orderId = newOrderId('view');
    expect((await merchant.post('/v2/payments/outgoing', payout(orderId))).status).toBe(201);
    const base = `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}`;
    const available = await agent.client.request('GET', '/backoffice/v1/agent/orders?scope=available');
    const taken = await agent.client.request('POST', `${base}/take`, {});
    const view = await agent.client.request('GET', base);
    const assigned = await agent.client.request('GET', '/backoffice/v1/agent/orders');
    for (const response of [available, taken, view, assigned]) {
      expect(response.status).toBe(200);
      expect(response.text).not.toMatch(/callback_url|redirect_url|shop\.example/);
    }
  });

  /** A payout the agent has taken, and the back-office path of it. */
  async function takenPayout(prefix: string): Promise<{ orderId: string; base: string }> {
    const orderId = newOrderId(prefix);
    expect((await merchant.post('/v2/payments/outgoing', payout(orderId))).status).toBe(201);
    const base = `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}`;
    expect((await agent.client.request('POST', `${base}/take`, {})).status).toBe(200);
    return { orderId, base };
  }

  /** A PNG of exactly 5 MiB, the largest receipt there is. */
  const fiveMebibytePng = (filler: number) => Buffer.concat([PNG_HEADER, Buffer.alloc(5 * 1024 * 1024 - PNG_HEADER.length, filler)]);

  it('takes a 5 MB receipt from an agent and refuses a larger one with 413 naming the limit', async () => {
    const { base } = await takenPayout('receipt');
    const fiveMegabytes = fiveMebibytePng(0x41);
    const upload = await agent.client.request('POST', `${base}/receipts`, fiveMegabytes, { 'x-file-name': 'big.png' });
    expect([upload.status, upload.body.size_bytes]).toEqual([201, 5 * 1024 * 1024]);
    const tooLarge = await agent.client.request('POST', `${base}/receipts`, Buffer.concat([fiveMegabytes, Buffer.from('x')]), { 'x-file-name': 'bigger.png' });
    expect([tooLarge.status, tooLarge.body.error?.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(tooLarge.body.error.message).toContain(String(5 * 1024 * 1024));
  });

  /** An upload in 64 KiB chunks with no Content-Length (chunked), so only counting the bytes as they pass can enforce the limit. */
  function uploadChunked(path: string, content: Buffer): Promise<{ status: number; body: any }> {
    const url = new URL(system.gatewayUrl);
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(
        {
          host: url.hostname,
          port: url.port,
          method: 'POST',
          path,
          headers: { authorization: `Bearer ${agent.client.token}`, 'content-type': 'application/octet-stream', 'x-file-name': 'chunked.png' },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
        },
      );
      outgoing.on('error', reject);
      for (let offset = 0; offset < content.length; offset += 64 * 1024) outgoing.write(content.subarray(offset, offset + 64 * 1024));
      outgoing.end();
    });
  }

  it('streams a receipt sent without Content-Length, and refuses one that grows past 5 MiB with 413 naming the limit', async () => {
    const { orderId, base } = await takenPayout('chunked');
    const fiveMegabytes = fiveMebibytePng(0x42);
    const upload = await uploadChunked(`${base}/receipts`, fiveMegabytes);
    expect([upload.status, upload.body.size_bytes]).toEqual([201, 5 * 1024 * 1024]);
    const tooLarge = await uploadChunked(`${base}/receipts`, Buffer.concat([fiveMegabytes, Buffer.alloc(100 * 1024, 0x43)]));
    expect([tooLarge.status, tooLarge.body.error?.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect(tooLarge.body.error.message).toContain(String(5 * 1024 * 1024));
    // Only the receipt route takes a file: a file type sent elsewhere is 415, never parsed as JSON.
    const fileElsewhere = await agent.client.request('POST', `${base}/decline`, Buffer.from('%PDF-1.4'));
    expect([fileElsewhere.status, fileElsewhere.body.error?.code]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    // Nothing of the refused upload was stored: only the first file is.
    const stored = await system.query<{ size_bytes: number }>('payments', `SELECT size_bytes FROM payout_receipts WHERE order_id = $1`, [orderId]);
    expect(stored).toEqual([{ size_bytes: 5 * 1024 * 1024 }]);
  });

  it('answers a method a known path does not have with 405 and Allow', async () => {
    const response = await merchant.request({ method: 'PUT', path: '/v2/merchant', body: {} });
    expect([response.status, response.body.error?.code, response.headers.get('allow')]).toEqual([405, 'METHOD_NOT_ALLOWED', 'GET, PATCH']);
    expect(response.body.request_id).toEqual(expect.any(String));
    const list = await merchant.request({ method: 'GET', path: '/v2/payments/incoming/list' });
    expect([list.status, list.headers.get('allow')]).toEqual([405, 'POST']);
    const unknown = await merchant.request({ method: 'PUT', path: '/v2/nothing-here', body: {} });
    expect([unknown.status, unknown.body.error?.code]).toEqual([404, 'NOT_FOUND']);
  });

  /**
   * Writes the whole request at once, as a client without `Expect: 100-continue` does (Python's
   * http.client, Node's fetch), and reads whatever answer arrives; `connectionClose` adds the
   * `Connection: close` header such a client often sends.
   */
  function sendWholeRequest(path: string, body: Buffer, connectionClose = false): Promise<string> {
    const url = new URL(system.gatewayUrl);
    return new Promise((resolve) => {
      const chunks: Buffer[] = [];
      const socket = connect(Number(url.port), url.hostname, () => {
        socket.write(
          `POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nx-api-key: ${merchant.credentials.merchantId}\r\n${connectionClose ? 'connection: close\r\n' : ''}\r\n`,
        );
        socket.write(body);
      });
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        const text = Buffer.concat(chunks).toString('latin1');
        const headerEnd = text.indexOf('\r\n\r\n');
        const length = /\r\ncontent-length: (\d+)/i.exec(text);
        // The whole answer is in: done, whether or not the server keeps the connection.
        if (headerEnd >= 0 && length && text.length >= headerEnd + 4 + Number(length[1])) socket.destroy();
      });
      socket.on('error', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
      socket.setTimeout(15_000, () => socket.destroy());
    });
  }

  it('answers a 5 MB body with a 413 the client can read, every time', async () => {
    const body = Buffer.from(`{"cursor": "${'a'.repeat(5 * 1024 * 1024)}"}`);
    for (let attempt = 0; attempt < 6; attempt += 1) {
      const answer = await sendWholeRequest('/v2/payments/incoming/list', body);
      expect([attempt, answer.split('\r\n')[0]]).toEqual([attempt, 'HTTP/1.1 413 Payload Too Large']);
      expect(answer).toContain('PAYLOAD_TOO_LARGE');
    }
  });

  it.each([
    ['the merchant API', '/v2/payments/incoming/list'],
    ['the payer page', '/pay/not-a-real-token/paid'],
    ['the back office', '/backoffice/v1/merchants'],
    ['the console', '/console/api/login'],
  ])('answers a 5 MB body sent with Connection: close on %s with a 413 the client can read, every time', async (_surface, path) => {
    const body = Buffer.from(`{"cursor": "${'a'.repeat(5 * 1024 * 1024)}"}`);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      const answer = await sendWholeRequest(path, body, true);
      expect([path, attempt, answer.split('\r\n')[0]]).toEqual([path, attempt, 'HTTP/1.1 413 Payload Too Large']);
      expect(answer).toContain('PAYLOAD_TOO_LARGE');
    }
  });
});
