/**
 * Goal: an operator reads an order as it stood at any instant, and a merchant's balances at the
 * end of a UTC day (docs/operations/as-of-reads.md), through the back office: the states the
 * back office showed after each step of a pay-in, recorded with their times during the run, are
 * the states the as-of read gives for those times; before the order existed there is none; the
 * day's closing balances are the balances the merchant reads once the day's entries are in.
 * Method: the real gateway, services and Kafka; a pay-in taken through the payer page and the
 * agent's confirm, the operator's order view read after each step.
 */
import { BackofficeClient, createOperator, eventually, registerAgent, SignedClient, SystemUnderTest, type RegisteredAgent } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('reads as of an instant, through the back office', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    merchant = await system.createClient('As-of shop');
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  });
  afterAll(async () => system?.stop());

  const pause = () => new Promise((resolve) => setTimeout(resolve, 20));

  it("gives the order's state at each recorded instant, and its events", async () => {
    const merchantId = merchant.credentials.merchantId;
    const orderId = newOrderId('asof');
    const view = async () => (await operator.request('GET', `/backoffice/v1/orders/${merchantId}/${orderId}`)).body;
    const before = new Date();
    await pause();

    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
    expect(created.status).toBe(201);
    const token = String(created.body.redirect_url).split('/pay/')[1];
    const steps = [
      () => Promise.resolve(),
      async () => expect((await fetch(`${system.gatewayUrl}/pay/${token}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303),
      async () => expect((await fetch(`${system.gatewayUrl}/pay/${token}/paid`, { method: 'POST', redirect: 'manual' })).status).toBe(303),
      async () => expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${orderId}/confirm`, {})).status).toBe(200),
    ];
    const recorded: Array<{ at: string; state: Record<string, unknown> }> = [];
    for (const step of steps) {
      await step();
      recorded.push({ at: new Date().toISOString(), state: await view() });
      await pause();
    }
    expect(recorded.map(({ state }) => `${String(state['status'])}/${String(state['sub_status'])}`)).toEqual([
      'PENDING/awaiting_agent',
      'PENDING/agent_assigned',
      'PENDING/payer_reported_paid',
      'SUCCEEDED/null',
    ]);

    const asOf = (at: string) => operator.request('GET', `/backoffice/v1/orders/${merchantId}/${orderId}/as-of?at=${encodeURIComponent(at)}`);
    const none = await asOf(before.toISOString());
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ version: 0, state: null });
    for (const [index, { at, state }] of recorded.entries()) {
      const read = await asOf(at);
      expect(read.status).toBe(200);
      expect(read.body).toMatchObject({ as_of: at, version: index + 1 });
      // The operator's view less what is not an event of the order (its receipts).
      const { receipts: _receipts, ...withoutReceipts } = state;
      expect(read.body.state).toEqual({ ...withoutReceipts, receipts: [] });
      expect(read.body.events.map((event: { type: string }) => event.type)).toEqual([
        'IncomingPaymentCreated',
        'PaymentOrderAgentAssigned',
        'IncomingPaymentMarkedPaid',
        'PaymentOrderSucceeded',
      ]);
    }
    expect((await operator.request('GET', `/backoffice/v1/orders/${merchantId}/${orderId}/as-of?at=yesterday`)).status).toBe(400);
    expect(
      (await operator.request('GET', `/backoffice/v1/orders/${merchantId}/no-such-order/as-of?at=${encodeURIComponent(before.toISOString())}`)).status,
    ).toBe(404);
  });

  it("gives the day's closing balances as the merchant reads them, and the previous day's as its opening", async () => {
    const merchantId = merchant.credentials.merchantId;
    const today = new Date().toISOString().slice(0, 10);
    const available = async () =>
      (await merchant.get('/v2/merchant/balances')).body.settlement.find((entry: { currency: string }) => entry.currency === 'RUB')?.available;
    // The credit of the first test's pay-in reaches the ledger through Kafka.
    const rub = await eventually(available, (value) => typeof value === 'number' && value > 0, 'the pay-in credited', 30_000);

    const day = await operator.request('GET', `/backoffice/v1/merchants/${merchantId}/balances/end-of-day?date=${today}`);
    expect(day.status).toBe(200);
    expect(day.body).toMatchObject({ merchant_id: merchantId, date: today });
    const [ruble] = day.body.currencies;
    expect(ruble.currency).toBe('RUB');
    expect(ruble.opening.settlement_available).toBe('0');
    expect(ruble.closing.settlement_available).toBe(String(Math.round(rub * 100)));
    expect((await operator.request('GET', `/backoffice/v1/merchants/${merchantId}/balances/end-of-day?date=31-01-2026`)).status).toBe(400);
  });
});
