/**
 * Goal: malformed requests (the bad-input lists of shared/references/reliability.md) get a 4xx
 * with a VALIDATION_ERROR body naming the field, never a 5xx, and create nothing. Method:
 * correctly signed requests whose bodies break one rule each.
 */
import { SignedClient, SystemUnderTest } from '@mp/shared-testing';
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
    it.each(['"ftp://shop.example/cb"', '"/relative/path"', '"javascript:alert(1)"', '"http://shop.example/cb"', JSON.stringify(`https://shop.example/${'a'.repeat(2100)}`), '42'])(
      'refuses callback_url %s',
      (literal) => expectValidationError(bodyWith('callback_url', literal), 'callback_url'),
    );
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
      expect(response.body.error.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['amount', 'callback_url', 'country', 'currency', 'order_id']);
    });

    it('refuses unknown fields', () => expectValidationError(bodyWith('amount_cents', '150050'), 'amount_cents'));

    it('answers a huge body with 413', async () => {
      const response = await merchant.post('/v2/payments/incoming', bodyWith('callback_url', JSON.stringify(`https://x.example/${'a'.repeat(1024 * 1024)}`)));
      expect([response.status, response.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    });
  });

  it('created no order for any of the refused requests', async () => {
    const rows = await system.query<{ count: string }>('payments', `SELECT count(*) FROM payment_orders`);
    expect(Number(rows[0].count)).toBe(1);
  });

  it('answers unknown routes and methods with the error body', async () => {
    const response = await merchant.get('/v2/nothing-here');
    expect([response.status, response.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });
});
