/**
 * Goal: idempotency by order_id (docs/api/endpoints.md) under concurrency and across tenants. Method: fire identical and conflicting
 * signed creates at the same moment through the real gateway and Kafka, then count what the
 * payments service's event store holds.
 */
import { SignedClient, SystemUnderTest } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('idempotency by order_id', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let otherMerchant: SignedClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    merchant = await system.createClient('Idempotent shop');
    otherMerchant = await system.createClient('Neighbour shop');
  });
  afterAll(async () => system?.stop());

  async function storedEvents(merchantId: string, orderId: string): Promise<number> {
    const rows = await system.query<{ count: string }>('payments', `SELECT count(*) FROM event_store WHERE stream_id = $1`, [
      `payment-order:${merchantId}:${orderId}`,
    ]);
    return Number(rows[0].count);
  }

  it('turns 50 concurrent identical creates into one order and 50 identical answers', async () => {
    const orderId = newOrderId('burst');
    const body = JSON.stringify(incomingPayment(orderId));
    const responses = await Promise.all(Array.from({ length: 50 }, () => merchant.post('/v2/payments/incoming', body)));
    expect(responses.map((response) => response.status)).toEqual(Array(50).fill(201));
    expect(new Set(responses.map((response) => response.text)).size).toBe(1);
    // Exactly one of them created the order; the others were answered with it and say so.
    expect(responses.map((response) => response.headers.get('idempotent-replayed') ?? 'absent').sort()).toEqual(['absent', ...Array(49).fill('true')]);
    expect(responses[0].body).toMatchObject({ order_id: orderId, status: 'PENDING', amount: 1500.5, currency: 'RUB', direction: 'incoming' });
    expect(responses[0].body.redirect_url).toMatch(new RegExp(`^${system.gatewayUrl}/pay/[A-Za-z0-9_-]+$`));
    expect(await storedEvents(merchant.credentials.merchantId, orderId)).toBe(1);
  });

  it('lets one of several concurrent creates with different amounts win and refuses the rest as DUPLICATE_ORDER', async () => {
    const orderId = newOrderId('race');
    const amounts = Array.from({ length: 20 }, (_, index) => 1000 + index);
    const responses = await Promise.all(amounts.map((amount) => merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount }))));
    const winners = responses.filter((response) => response.status === 201);
    expect(winners).toHaveLength(1);
    const losers = responses.filter((response) => response.status !== 201);
    expect(losers.map((response) => [response.status, response.body.error.code])).toEqual(Array(19).fill([409, 'DUPLICATE_ORDER']));
    expect(await storedEvents(merchant.credentials.merchantId, orderId)).toBe(1);
    const status = await merchant.get(`/v2/payments/status/${orderId}`);
    expect(status.body.amount).toBe(winners[0].body.amount);
  });

  it('returns the same order to a later retry and refuses a different currency', async () => {
    const orderId = newOrderId('retry');
    const first = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
    const retry = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect([first.headers.get('idempotent-replayed'), retry.headers.get('idempotent-replayed')]).toEqual([null, 'true']);
    const otherCurrency = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { currency: 'INR', country: 'IN' }));
    expect([otherCurrency.status, otherCurrency.body.error.code, otherCurrency.headers.get('idempotent-replayed')]).toEqual([409, 'DUPLICATE_ORDER', null]);
    expect(await storedEvents(merchant.credentials.merchantId, orderId)).toBe(1);
  });

  it('keeps merchants apart: another merchant cannot read the order and may use the same order_id', async () => {
    const orderId = newOrderId('tenant');
    const mine = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
    expect(mine.status).toBe(201);

    const peek = await otherMerchant.get(`/v2/payments/status/${orderId}`);
    expect([peek.status, peek.body.error.code]).toEqual([404, 'ORDER_NOT_FOUND']);
    const missing = await merchant.get(`/v2/payments/status/${newOrderId('never-created')}`);
    expect([missing.status, missing.body.error.code]).toEqual([404, 'ORDER_NOT_FOUND']);

    const theirs = await otherMerchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 999 }));
    expect(theirs.status).toBe(201);
    expect((await merchant.get(`/v2/payments/status/${orderId}`)).body.amount).toBe(1500.5);
    expect((await otherMerchant.get(`/v2/payments/status/${orderId}`)).body.amount).toBe(999);
  });
});
