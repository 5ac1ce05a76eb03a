/**
 * Goal: withdrawal outcomes and dispute changes reach the merchant's default callback URL
 * (docs/api/callbacks.md): `withdrawal.completed` / `withdrawal.failed` with the object
 * `GET /v2/merchant/withdrawals/{order_id}` returns, and `dispute.opened`, `.rejected`,
 * `.opened` (the retry), `.accepted` with the object `GET /v2/disputes/{id}` returns, each plus
 * its `version` and the merchant's `metadata`, every one signed so the `standardwebhooks` package verifies it with the
 * merchant's webhook secret. Payments acknowledges each review on its own payments.order.events,
 * never on the gateway's disputes.commands, and nothing else acts on that acknowledgement.
 * Method: real gateway, payments, ledger, withdrawals, disputes and callback dispatcher
 * processes on real Kafka and PostgreSQL; the merchant is created by the operator API with a
 * default callback URL pointing at a verifying receiver on 127.0.0.1.
 */
import { DISPUTE_COMMAND_TYPES, DISPUTES_TOPICS } from '@mp/contracts-disputes';
import {
  PAYMENT_ORDER_DISPUTE_EVENT_TYPES,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES,
  PAYMENTS_TOPICS,
  type PaymentOrderDisputeOutcomeAppliedData,
} from '@mp/contracts-payments';
import { BackofficeClient, CallbackReceiver, createOperator, registerAgent, SignedClient, SystemUnderTest, type RegisteredAgent } from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { disputesKnow } from './disputable-orders';
import { incomingPayment, newOrderId } from './fixtures';
import { envelopesOnTopic } from './topic-envelopes';
import { CONVERSION_FEE_BASIS_POINTS, ERC20_ADDRESS, FAILING_ERC20_ADDRESS, fundWith1000Usdt } from './usdt-funding';

type WithdrawalData = { order_id: string; status: string };
type DisputeData = { dispute_id: string; status: string };

describe('withdrawal and dispute callbacks', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let receiver: CallbackReceiver;
  let merchant: SignedClient;
  /** The pay-in the dispute test disputes twice (rejected, then accepted on the retry). */
  let disputedOrderId: string | undefined;

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: {
        gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true', GATEWAY_COMMAND_TIMEOUT_MS: '30000' },
        ledger: { LEDGER_CONVERSION_FEE_BASIS_POINTS: String(CONVERSION_FEE_BASIS_POINTS) },
        withdrawals: {
          WITHDRAWALS_SIMULATOR_DELAY_MS: '300',
          WITHDRAWALS_SIMULATOR_FAIL_ADDRESS_PATTERN: `^${FAILING_ERC20_ADDRESS}$`,
          WITHDRAWALS_SEND_INTERVAL_MS: '200',
        },
      },
    });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    receiver = await CallbackReceiver.start({ secrets: [] });
    const created = await operator.request('POST', '/backoffice/v1/merchants', { name: 'Callback shop', default_callback_url: receiver.url() });
    expect(created.status).toBe(201);
    receiver.secrets.push(created.body.webhook_secret as string);
    merchant = new SignedClient(system.gatewayUrl, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret });
    expect((await merchant.get('/v2/merchant')).body.default_callback_url).toBe(receiver.url());
  });

  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  /** Every callback received so far carries a signature the package accepts with the merchant's secret. */
  const expectAllVerified = () => {
    expect(receiver.received.length).toBeGreaterThan(0);
    expect(receiver.received.map((callback) => callback.verifiedWith)).toEqual(receiver.received.map(() => receiver.secrets));
    // The body's id is the webhook-id the signature covers.
    expect(receiver.bodies().map((body) => body.id)).toEqual(receiver.received.map((callback) => callback.headers['webhook-id']));
  };

  it('sends withdrawal.completed and withdrawal.failed with the withdrawal object and its version to the default callback URL', async () => {
    await fundWith1000Usdt(operator, agent, merchant);
    const completedId = newOrderId('wd-ok');
    const failedId = newOrderId('wd-fail');
    const withdrawal = { order_id: completedId, amount: 100, currency: 'USDT-ERC20', address: ERC20_ADDRESS, metadata: { payout_batch: 'B-7' } };
    expect((await merchant.post('/v2/merchant/withdrawals', withdrawal)).status).toBe(201);
    const otherMetadata = await merchant.post('/v2/merchant/withdrawals', { ...withdrawal, metadata: { payout_batch: 'B-8' } });
    expect([otherMetadata.status, otherMetadata.body.error.code, otherMetadata.body.error.details[0].field]).toEqual([409, 'DUPLICATE_ORDER', 'metadata']);
    expect(
      (await merchant.post('/v2/merchant/withdrawals', { order_id: failedId, amount: 50, currency: 'USDT-ERC20', address: FAILING_ERC20_ADDRESS })).status,
    ).toBe(201);

    const withdrawalCallbacks = () => receiver.bodies<WithdrawalData>().filter((body) => body.type.startsWith('withdrawal.'));
    await eventually(withdrawalCallbacks, (bodies) => bodies.length >= 2, 'both withdrawal callbacks', 60_000);

    const completed = withdrawalCallbacks().filter((body) => body.data.order_id === completedId);
    expect(completed.map((body) => body.type)).toEqual(['withdrawal.completed']);
    const completedState = await merchant.get(`/v2/merchant/withdrawals/${encodeURIComponent(completedId)}`);
    expect(completedState.body).toMatchObject({
      status: 'COMPLETED',
      transaction_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      metadata: { payout_batch: 'B-7' },
    });
    expect(completed[0]?.data).toEqual({ ...completedState.body, version: expect.any(Number) });
    expect(completed[0]?.data.version).toBeGreaterThan(1);

    const failed = withdrawalCallbacks().filter((body) => body.data.order_id === failedId);
    expect(failed.map((body) => body.type)).toEqual(['withdrawal.failed']);
    const failedState = await merchant.get(`/v2/merchant/withdrawals/${encodeURIComponent(failedId)}`);
    expect(failedState.body).toMatchObject({ status: 'FAILED', transaction_hash: null, metadata: {} });
    expect(failed[0]?.data).toEqual({ ...failedState.body, version: expect.any(Number) });
    expectAllVerified();
  });

  it('accepts a withdrawal and answers a dispute as documented while the merchant has no default callback URL, keeps the outcome, and sends it to the URL set with PATCH /v2/merchant', async () => {
    // An operator may create a merchant without a default callback URL: one that polls.
    const created = await operator.request('POST', '/backoffice/v1/merchants', { name: 'No callback shop' });
    expect(created.status).toBe(201);
    const lateReceiver = await CallbackReceiver.start({ secrets: [created.body.webhook_secret as string] });
    try {
      const shop = new SignedClient(system.gatewayUrl, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret });
      expect((await shop.get('/v2/merchant')).body.default_callback_url).toBeNull();
      await fundWith1000Usdt(operator, agent, shop);

      // The spec's answers come first: a dispute on an order that does not exist is 404.
      const dispute = await shop.post('/v2/disputes', { order_id: newOrderId('no-such-order'), comment: 'paid' });
      expect([dispute.status, dispute.body.error.code]).toEqual([404, 'ORDER_NOT_FOUND']);

      // The withdrawal is accepted and completes; its callback waits in the delivery log for a URL.
      const orderId = newOrderId('wd-later');
      const accepted = await shop.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 100, currency: 'USDT-ERC20', address: ERC20_ADDRESS });
      expect(accepted.status).toBe(201);
      await eventually(
        async () => (await shop.get(`/v2/merchant/withdrawals/${orderId}`)).body.status,
        (status) => status === 'COMPLETED',
        'the withdrawal completed',
        60_000,
      );
      const kept = await eventually(
        async () =>
          (await shop.get(`/v2/webhooks/deliveries?order_id=${encodeURIComponent(orderId)}`)).body.data as Array<{
            status: string;
            url: string | null;
            event_type: string;
          }>,
        (rows) => rows.length === 1,
        'the kept withdrawal callback',
        30_000,
      );
      expect(kept.map(({ status, url, event_type }) => ({ status, url, event_type }))).toEqual([
        { status: 'awaiting_url', url: null, event_type: 'withdrawal.completed' },
      ]);
      // Callbacks only: on a busy machine another test's system may probe a port this receiver took over (its GETs are not callbacks).
      expect(lateReceiver.received.filter((request) => request.method === 'POST')).toEqual([]);

      // The settings endpoint checks what it is given, like every other body.
      for (const bad of [
        {},
        { default_callback_url: null },
        { default_callback_url: 'ftp://shop.example/cb' },
        { default_callback_url: lateReceiver.url(), name: 'Renamed' },
      ]) {
        const answer = await shop.request({ method: 'PATCH', path: '/v2/merchant', body: bad });
        expect([answer.status, answer.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
      }
      const updated = await shop.request({ method: 'PATCH', path: '/v2/merchant', body: { default_callback_url: lateReceiver.url() } });
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({
        merchant_id: created.body.merchant_id,
        default_callback_url: lateReceiver.url(),
        default_callback_url_disabled: false,
      });

      // The kept outcome reaches the new URL, signed, once.
      const bodies = await eventually(
        () => lateReceiver.bodies<WithdrawalData>(),
        (received) => received.some((body) => body.type === 'withdrawal.completed'),
        'the kept withdrawal callback at the new URL',
        60_000,
      );
      expect(bodies.filter((body) => body.data.order_id === orderId).map((body) => body.type)).toEqual(['withdrawal.completed']);
      expect(lateReceiver.received.every((callback) => callback.verifiedWith.length === 1)).toBe(true);
      const sent = (await shop.get(`/v2/webhooks/deliveries?order_id=${encodeURIComponent(orderId)}`)).body.data as Array<{
        status: string;
        url: string | null;
      }>;
      expect(sent.map(({ status, url }) => ({ status, url }))).toEqual([{ status: 'succeeded', url: lateReceiver.url() }]);
    } finally {
      await lateReceiver.stop();
    }
  });

  it('sends dispute.opened, dispute.rejected, dispute.opened, dispute.accepted in version order, each with the dispute object at that point', async () => {
    // A pay-in whose payer pressed "Show payment details" (the agent is assigned), declined by the agent.
    const orderId = newOrderId('disputed');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 1000, callback_url: receiver.url('/payments') }));
    expect(created.status).toBe(201);
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect(
      (await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/decline`, { reason: 'no money arrived' }))
        .status,
    ).toBe(200);
    await disputesKnow(system, merchant, orderId, true);
    disputedOrderId = orderId;

    const disputeCallbacks = () => receiver.bodies<DisputeData>().filter((body) => body.type.startsWith('dispute.'));
    const review = (disputeId: string, decision: 'ACCEPTED' | 'REJECTED', reason?: string) =>
      operator.request('POST', `/backoffice/v1/disputes/${merchant.credentials.merchantId}/${disputeId}/review`, { decision, ...(reason ? { reason } : {}) });
    /** The state endpoint's answer after a step, once that step's callback has arrived. */
    const stateAfter = async (disputeId: string, callbacks: number, status: string) => {
      await eventually(disputeCallbacks, (bodies) => bodies.length >= callbacks, `dispute callback ${callbacks}`, 30_000);
      const state = await merchant.get(`/v2/disputes/${disputeId}`);
      expect([state.status, state.body.status]).toEqual([200, status]);
      return state.body as Record<string, unknown>;
    };

    const opened = await merchant.post('/v2/disputes', { order_id: orderId, amount: 900, comment: 'The payer sent 900.00', metadata: { ticket: 'T-1' } });
    expect(opened.status).toBe(201);
    const disputeId = opened.body.dispute_id as string;
    const states = [await stateAfter(disputeId, 1, 'OPEN')];
    expect((await review(disputeId, 'REJECTED', 'the transfer is not ours')).status).toBe(200);
    states.push(await stateAfter(disputeId, 2, 'REJECTED'));
    expect((await merchant.post('/v2/disputes', { order_id: orderId, amount: 950, comment: 'It was 950.00' })).status).toBe(201);
    states.push(await stateAfter(disputeId, 3, 'OPEN'));
    expect((await review(disputeId, 'ACCEPTED')).status).toBe(200);
    states.push(await stateAfter(disputeId, 4, 'ACCEPTED'));

    const bodies = [...disputeCallbacks()].sort((a, b) => a.data.version - b.data.version);
    expect(bodies.map((body) => [body.type, body.data.dispute_id])).toEqual([
      ['dispute.opened', disputeId],
      ['dispute.rejected', disputeId],
      ['dispute.opened', disputeId],
      ['dispute.accepted', disputeId],
    ]);
    const versions = bodies.map((body) => body.data.version);
    expect(new Set(versions).size).toBe(4);
    // Each callback shows the dispute as the state endpoint did after that step.
    expect(bodies.map((body) => body.data.status)).toEqual(states.map((state) => state['status']));
    expect(bodies[0]?.data).toMatchObject({ amount: 900, comment: 'The payer sent 900.00', review: null });
    expect(bodies[1]?.data).toMatchObject({ review: { decision: 'REJECTED', reason: 'the transfer is not ours' } });
    expect(bodies[2]?.data).toMatchObject({ amount: 950, comment: 'It was 950.00', review: null });
    // The open's metadata on every callback: the retry sent none, so the dispute kept it.
    expect(bodies.map((body) => body.data['metadata'])).toEqual([{ ticket: 'T-1' }, { ticket: 'T-1' }, { ticket: 'T-1' }, { ticket: 'T-1' }]);
    // The last one exactly: the state object plus its version.
    expect(bodies[3]?.data).toEqual({ ...states[3], version: versions[3] });
    expectAllVerified();
  });

  it('leaves disputes.commands to the gateway: payments acknowledges each review on payments.order.events, which the ledger and the dispatcher pass over', async () => {
    if (!disputedOrderId) throw new Error('runs after the dispute callbacks test, on its order');
    const subject = `merchant:${merchant.credentials.merchantId}/order:${disputedOrderId}`;

    // Only the gateway's opens are on the command topic: payments writes none (docs/operations/kafka-security.md).
    const commands = await envelopesOnTopic(system.runId, DISPUTES_TOPICS.commands);
    expect(commands.length).toBeGreaterThanOrEqual(2);
    expect(new Set(commands.map((envelope) => `${envelope.source} ${envelope.type}`))).toEqual(new Set([`gateway ${DISPUTE_COMMAND_TYPES.open}`]));

    // Payments' own event, once per review, the accepted one after the order's settlement on the same partition.
    const orderEvents = (await envelopesOnTopic(system.runId, PAYMENTS_TOPICS.orderEvents)).filter((envelope) => envelope.subject === subject);
    const acknowledged = orderEvents.filter((envelope) => envelope.type === PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied);
    // The dispute's stream: opened 1, rejected 2, reopened 3, accepted 4.
    expect(acknowledged.map((envelope) => [envelope.source, (envelope.data as PaymentOrderDisputeOutcomeAppliedData).disputeVersion])).toEqual([
      ['payments', 2],
      ['payments', 4],
    ]);
    expect(orderEvents.map((envelope) => envelope.type).slice(-2)).toEqual([
      PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded,
      PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied,
    ]);

    // Nobody dead-lettered anything of payments' topic; the order's callbacks are its two outcomes only; the ledger credited once.
    expect(await envelopesOnTopic(system.runId, `${PAYMENTS_TOPICS.orderEvents}.dlq`)).toEqual([]);
    const orderCallbacks = () => receiver.bodies().filter((body) => body.data.order_id === disputedOrderId && body.type.startsWith('payment.'));
    await eventually(orderCallbacks, (bodies) => bodies.length >= 2, 'the order’s payment callbacks', 30_000);
    expect(orderCallbacks().map((body) => body.type)).toEqual(['payment.failed', 'payment.succeeded']);
    // The ledger books from payments' events on its own time: read until the credit is there, then it must be the only one.
    const bookingsOf = () =>
      system.query<{ event_id: string }>(
        'ledger',
        `SELECT DISTINCT event_id FROM ledger_postings WHERE reference_kind = 'payment_order' AND reference_id = $1`,
        [disputedOrderId],
      );
    await eventually(bookingsOf, (bookings) => bookings.length >= 1, 'the ledger’s credit of the disputed order');
    expect(await bookingsOf()).toHaveLength(1);
  });
});
