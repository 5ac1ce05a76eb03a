/**
 * Goal: the sandbox (docs/api/sandbox.md). An operator issues a live merchant's test
 * credentials (`test_` and its id, shown once, its methods copied, a second issue refused);
 * each magic amount gives its documented outcome through the simulated agent with a real
 * signed callback (verified with the sandbox's own webhook secret); a dispute is accepted or
 * rejected by its amount; a withdrawal goes through the network simulator; a live agent's
 * queue never lists a test order; and the linked live merchant's balances do not move.
 * Method: real gateway, payments, ledger, disputes, withdrawals and callback dispatcher on real
 * Kafka and PostgreSQL; the sandbox agent runs on payments' expiry sweep, set short here, and
 * the timeout outcome is reached by moving payments' clock past the orders' expiry.
 */
import { spawnSync } from 'node:child_process';
import {
  BackofficeClient,
  CallbackReceiver,
  builtEntryPoint,
  createOperator,
  registerAgent,
  SignedClient,
  SystemUnderTest,
  type RegisteredAgent,
} from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { disputesKnow } from './disputable-orders';
import { incomingPayment, newOrderId, RUB_BANK_CARD_METHODS } from './fixtures';
import { balance, confirmedPayIn, CONVERSION_FEE_BASIS_POINTS, ERC20_ADDRESS } from './usdt-funding';

type OrderCallback = { order_id: string; status: string; amount: number; failure_reason: string | null };

describe('sandbox', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let receiver: CallbackReceiver;
  let live: SignedClient;
  let liveWebhookSecret: string;
  let sandbox: SignedClient;
  let sandboxWebhookSecret: string;
  let liveBalanceBefore: { available: number; frozen: number };
  /** Pay-ins the simulated agent declined, disputed below. */
  const declined: string[] = [];

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: {
        gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true', GATEWAY_COMMAND_TIMEOUT_MS: '30000' },
        payments: { TEST_CLOCK_ENABLED: 'true', PAYMENTS_EXPIRY_SWEEP_INTERVAL_MS: '200' },
        ledger: { LEDGER_CONVERSION_FEE_BASIS_POINTS: String(CONVERSION_FEE_BASIS_POINTS) },
        withdrawals: { WITHDRAWALS_SIMULATOR_DELAY_MS: '200', WITHDRAWALS_SEND_INTERVAL_MS: '200' },
      },
    });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    receiver = await CallbackReceiver.start({ secrets: [] });
    const created = await operator.request('POST', '/backoffice/v1/merchants', { name: 'Sandbox shop', default_callback_url: receiver.url() });
    expect(created.status).toBe(201);
    liveWebhookSecret = created.body.webhook_secret as string;
    live = new SignedClient(system.gatewayUrl, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret });
    expect((await operator.request('PUT', `/backoffice/v1/merchants/${live.credentials.merchantId}/methods`, RUB_BANK_CARD_METHODS)).status).toBe(200);
    // The live merchant has money of its own, which nothing in the sandbox may touch.
    await confirmedPayIn(agent, live, { amount: 1000 });
    liveBalanceBefore = await eventually(
      () => balance(live, 'RUB'),
      (rub) => rub.available === 979,
      'the live credit',
    );
  });

  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  const callbacksFor = (orderId: string) => receiver.bodies<OrderCallback>().filter((body) => body.data.order_id === orderId);
  const verifiedWithFor = (orderId: string) =>
    receiver.received.filter((callback) => JSON.parse(callback.body).data.order_id === orderId).map((callback) => callback.verifiedWith);
  /** The order's final callback, once it has come; it must be signed with the sandbox's own webhook secret only. */
  async function finalCallback(orderId: string, type: string): Promise<OrderCallback> {
    const [body] = await eventually(
      () => callbacksFor(orderId).filter((callback) => callback.type === type),
      (bodies) => bodies.length === 1,
      `${type} for ${orderId}`,
      15_000,
    );
    expect(verifiedWithFor(orderId).every((secrets) => secrets.length === 1 && secrets[0] === sandboxWebhookSecret)).toBe(true);
    return (body as { data: OrderCallback }).data;
  }

  it('lets an operator issue test credentials once: test_ and the live id, its own secrets, the live methods', async () => {
    const liveId = live.credentials.merchantId;
    const issued = await operator.request('POST', `/backoffice/v1/merchants/${liveId}/test-credentials`, {});
    expect(issued.status).toBe(201);
    expect(issued.body).toMatchObject({
      merchant_id: `test_${liveId}`,
      live_merchant_id: liveId,
      mode: 'test',
      name: 'Sandbox shop (test)',
      methods_copied: 2,
    });
    expect(issued.body.api_secret).toMatch(/^sk_/);
    expect(issued.body.webhook_secret).toMatch(/^whsec_/);
    expect(issued.body.webhook_secret).not.toBe(liveWebhookSecret);
    sandboxWebhookSecret = issued.body.webhook_secret as string;
    receiver.secrets.push(liveWebhookSecret, sandboxWebhookSecret);
    sandbox = new SignedClient(system.gatewayUrl, { merchantId: issued.body.merchant_id, apiSecret: issued.body.api_secret });

    const again = await operator.request('POST', `/backoffice/v1/merchants/${liveId}/test-credentials`, {});
    expect([again.status, again.body.error.code]).toEqual([409, 'TEST_CREDENTIALS_EXIST']);
    const ofTest = await operator.request('POST', `/backoffice/v1/merchants/test_${liveId}/test-credentials`, {});
    expect([ofTest.status, ofTest.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const unknown = await operator.request('POST', `/backoffice/v1/merchants/mch_${'0'.repeat(24)}/test-credentials`, {});
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
    expect((await agent.client.request('POST', `/backoffice/v1/merchants/${liveId}/test-credentials`, {})).status).toBe(403);

    expect((await operator.request('GET', `/backoffice/v1/merchants/test_${liveId}/methods`)).body).toEqual(
      (await operator.request('GET', `/backoffice/v1/merchants/${liveId}/methods`)).body,
    );
    expect((await sandbox.get('/v2/merchant')).body).toMatchObject({ merchant_id: `test_${liveId}`, default_callback_url: receiver.url() });
    // The audit trail is written after the answer, so it is read until both entries are there.
    const auditedIssuances = async () => {
      const audit = await operator.request('GET', `/backoffice/v1/audit?merchant_id=${liveId}`);
      return (audit.body.data as Array<{ action: string; status_code: number }>)
        .filter((entry) => entry.action === 'POST /backoffice/v1/merchants/:merchantId/test-credentials')
        .map((entry) => entry.status_code);
    };
    const statuses = await eventually(
      auditedIssuances,
      (codes) => codes.includes(201) && codes.includes(409),
      'both test-credential issuances in the audit trail',
    );
    expect(statuses).toEqual(expect.arrayContaining([201, 409]));
  });

  it('settles each magic amount as documented, with the normal events, ledger and signed callbacks', async () => {
    const payIn = async (amount: number) => {
      const orderId = newOrderId('sbx-in');
      expect(
        (await sandbox.post('/v2/payments/incoming', incomingPayment(orderId, { amount, method: 'bank_card', callback_url: receiver.url('/sandbox') }))).status,
      ).toBe(201);
      return orderId;
    };
    const succeeded = await payIn(1000);
    expect(await finalCallback(succeeded, 'payment.succeeded')).toMatchObject({ status: 'SUCCEEDED', amount: 1000 });
    // 1,000.00 less 2 % + 1.00: the sandbox merchant's own balance, funded like a live one.
    await eventually(
      () => balance(sandbox, 'RUB'),
      (rub) => rub.available === 979,
      'the sandbox credit',
    );

    for (const amount of [1000.01, 2000.01]) {
      const orderId = await payIn(amount);
      expect(await finalCallback(orderId, 'payment.failed')).toMatchObject({ status: 'FAILED', failure_reason: expect.stringContaining('ending in 01') });
      declined.push(orderId);
    }

    const payout = async (amount: number) => {
      const orderId = newOrderId('sbx-out');
      const body = {
        ...incomingPayment(orderId, { amount, callback_url: receiver.url('/sandbox') }),
        method: 'bank_card',
        account_number: '4111 1111 1111 1111',
      };
      expect((await sandbox.post('/v2/payments/outgoing', body)).status).toBe(201);
      return orderId;
    };
    const paidOut = await payout(100);
    expect(await finalCallback(paidOut, 'payment.succeeded')).toMatchObject({ status: 'SUCCEEDED', amount: 100 });
    const receipts = await sandbox.get(`/v2/payments/${paidOut}/receipts`);
    expect([receipts.status, receipts.body.data?.[0]?.file_name]).toEqual([200, 'sandbox-receipt.pdf']);
    expect(await finalCallback(await payout(100.01), 'payment.failed')).toMatchObject({ status: 'FAILED' });
    // 979.00 less the payout and its fee (103.00); the declined payout's hold is released.
    await eventually(
      () => balance(sandbox, 'RUB'),
      (rub) => rub.available === 876 && rub.frozen === 0,
      'the sandbox payouts',
    );
  });

  it('reviews a dispute by its amount: accepted unless it ends in 01', async () => {
    const [acceptedOrder, rejectedOrder] = declined;
    for (const orderId of declined) await disputesKnow(system, sandbox, orderId, true);
    const accepted = await sandbox.post('/v2/disputes', { order_id: acceptedOrder, amount: 900, comment: 'The payer sent 900.00' });
    expect(accepted.status).toBe(201);
    const rejected = await sandbox.post('/v2/disputes', { order_id: rejectedOrder, comment: 'The payer sent it all' });
    expect(rejected.status).toBe(201);
    const disputeTypes = () =>
      receiver
        .bodies<{ dispute_id: string; order_id: string }>()
        .filter((body) => body.type.startsWith('dispute.'))
        .map((body) => `${body.data.order_id} ${body.type}`);
    await eventually(
      disputeTypes,
      (types) => types.includes(`${acceptedOrder} dispute.accepted`) && types.includes(`${rejectedOrder} dispute.rejected`),
      'the sandbox reviews',
      15_000,
    );
    expect((await sandbox.get(`/v2/disputes/${accepted.body.dispute_id}`)).body).toMatchObject({ status: 'ACCEPTED' });
    expect((await sandbox.get(`/v2/disputes/${rejected.body.dispute_id}`)).body).toMatchObject({
      status: 'REJECTED',
      review: { reason: expect.stringContaining('ending in 01') },
    });
    expect((await sandbox.get(`/v2/payments/status/${acceptedOrder}`)).body).toMatchObject({ status: 'SUCCEEDED', amount: 900 });
  });

  it('sends withdrawals through the network simulator, failing a magic amount', async () => {
    const sandboxId = sandbox.credentials.merchantId;
    // Funded as a live merchant is: a pay-in that succeeds, converted by an operator.
    const fundingId = newOrderId('sbx-funding');
    expect(
      (await sandbox.post('/v2/payments/incoming', incomingPayment(fundingId, { amount: 200000, method: 'bank_card', callback_url: receiver.url('/sandbox') })))
        .status,
    ).toBe(201);
    await finalCallback(fundingId, 'payment.succeeded');
    await eventually(
      () => balance(sandbox, 'RUB'),
      (rub) => rub.available > 101010.1,
      'the funding credit',
    );
    const conversion = {
      conversion_id: `CV-${fundingId}`,
      from_currency: 'RUB',
      to_currency: 'USDT',
      amount: 101010.1,
      rate: '0.01',
      reason: 'sandbox withdrawal test',
    };
    const converted = await operator.request('POST', `/backoffice/v1/merchants/${sandboxId}/conversions`, conversion);
    expect([converted.status, converted.body.to_amount]).toEqual([201, 1000]);
    const orderId = newOrderId('sbx-wd');
    expect((await sandbox.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 100, currency: 'USDT-ERC20', address: ERC20_ADDRESS })).status).toBe(
      201,
    );
    const done = await eventually(
      () => sandbox.get(`/v2/merchant/withdrawals/${orderId}`),
      (state) => state.body.status === 'COMPLETED',
      'the simulated send',
      15_000,
    );
    expect(done.body.transaction_hash).toMatch(/^[0-9a-f]{64}$/);
    await eventually(
      () => receiver.bodies<{ order_id: string }>().filter((body) => body.type === 'withdrawal.completed' && body.data.order_id === orderId),
      (bodies) => bodies.length === 1,
      'withdrawal.completed',
    );
    // A magic amount (minor units ending in 01) is rejected by the simulated network; its hold is released.
    const failedId = newOrderId('sbx-wd-fail');
    expect(
      (await sandbox.post('/v2/merchant/withdrawals', { order_id: failedId, amount: 20.000001, currency: 'USDT-ERC20', address: ERC20_ADDRESS })).status,
    ).toBe(201);
    const failed = await eventually(
      () => sandbox.get(`/v2/merchant/withdrawals/${failedId}`),
      (state) => state.body.status === 'FAILED',
      'the simulated rejection',
      15_000,
    );
    expect(failed.body.failure_reason).toContain('ending in 01');
    await eventually(
      () => receiver.bodies<{ order_id: string }>().filter((body) => body.type === 'withdrawal.failed' && body.data.order_id === failedId),
      (bodies) => bodies.length === 1,
      'withdrawal.failed',
    );
    // 1,000.00 less the sent withdrawal and its 5.00 network fee.
    await eventually(
      () => balance(sandbox, 'USDT'),
      (usdt) => usdt.available === 895 && usdt.frozen === 0,
      'the released hold',
    );
  });

  it('never shows a live agent a test order, and expires a timeout amount as an order nobody took', async () => {
    const payoutId = newOrderId('sbx-timeout-out');
    const payoutBody = {
      ...incomingPayment(payoutId, { amount: 100.02, callback_url: receiver.url('/sandbox') }),
      method: 'bank_card',
      account_number: '4111 1111 1111 1111',
    };
    expect((await sandbox.post('/v2/payments/outgoing', payoutBody)).status).toBe(201);
    const payInId = newOrderId('sbx-timeout-in');
    const created = await sandbox.post(
      '/v2/payments/incoming',
      incomingPayment(payInId, { amount: 100.02, method: 'bank_card', callback_url: receiver.url('/sandbox') }),
    );
    expect(created.status).toBe(201);
    // The payer asks for details: the sandbox agent shows them, not the live agent.
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect(await (await fetch(created.body.redirect_url)).text()).toContain('no money moves');
    // Several sandbox passes later, both are still waiting.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await sandbox.get(`/v2/payments/status/${payoutId}`)).body.status).toBe('PENDING');

    const available = await agent.client.request('GET', '/backoffice/v1/agent/orders?scope=available');
    expect(available.status).toBe(200);
    expect(available.body.data.map((order: { order_id: string }) => order.order_id)).not.toContain(payoutId);
    const take = await agent.client.request('POST', `/backoffice/v1/agent/orders/${sandbox.credentials.merchantId}/${payoutId}/take`, {});
    expect([take.status, take.body.error.code]).toEqual([404, 'ORDER_NOT_FOUND']);
    const assigned = await agent.client.request('GET', '/backoffice/v1/agent/orders');
    expect(assigned.body.data.map((order: { order_id: string }) => order.order_id).filter((id: string) => id.startsWith('sbx'))).toEqual([]);

    const clock = await fetch(`${system.paymentsUrl}/internal/test/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await system.internalHeaders('payments', { as: 'test-harness' })) },
      body: JSON.stringify({ advance_seconds: 31 * 60 }),
    });
    expect(clock.status).toBe(200);
    expect(await finalCallback(payoutId, 'payment.expired')).toMatchObject({ status: 'EXPIRED' });
    expect(await finalCallback(payInId, 'payment.expired')).toMatchObject({ status: 'EXPIRED' });
  });

  it('leaves the linked live merchant’s balances where they were', async () => {
    expect(await balance(live, 'RUB')).toEqual(liveBalanceBefore);
    expect(await balance(live, 'USDT')).toEqual({ available: 0, frozen: 0 });
    // The sandbox's orders are its own merchant's: the live lists hold only the live pay-in.
    const liveIncoming = await live.post('/v2/payments/incoming/list', {});
    const liveOutgoing = await live.post('/v2/payments/outgoing/list', {});
    expect([liveIncoming.body.data.length, liveOutgoing.body.data.length]).toEqual([1, 0]);
  });

  it('passes the money audit (npm run audit) over every database, the sandbox merchant audited like the live one', () => {
    const databases = ['ledger', 'payments', 'withdrawals', 'disputes', 'callbacks', 'gateway'] as const;
    const env = {
      PATH: process.env['PATH'] ?? '',
      ...Object.fromEntries(databases.map((name) => [`${name.toUpperCase()}_DATABASE_URL`, system.databaseUrl(name)])),
    };
    const audit = spawnSync(process.execPath, [builtEntryPoint('apps/ops/src/audit.ts'), '--json'], { env, encoding: 'utf8' });
    const report = JSON.parse(audit.stdout) as { checks: Array<{ name: string; status: string; violations: unknown[]; sandboxViolations: unknown[] }> };
    expect(report.checks.filter((check) => check.status !== 'passed')).toEqual([
      expect.objectContaining({ name: 'acknowledged-orders-exist', status: 'skipped' }),
    ]);
    expect(audit.status).toBe(0);
  });
});
