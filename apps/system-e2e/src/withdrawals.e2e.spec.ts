/**
 * Goal: withdrawals to crypto wallets work as docs/api/endpoints.md and docs/api/money-and-fees.md say, through the whole
 * system: the amount + network fee leaves available and shows as frozen within the create
 * request; the simulated network sends in the background; COMPLETED carries the transaction
 * hash and the ledger takes the hold, FAILED returns the money; 100 concurrent withdrawals
 * against one balance accept exactly what it covers; a crash in the middle of sending resumes
 * with exactly one send; wrong addresses are refused before any money moves; other merchants'
 * withdrawals are not found; the ledger auditor agrees with the books afterwards.
 * Method: real gateway, payments, ledger and withdrawals processes on real Kafka and
 * PostgreSQL. Merchants get USDT the way docs/api/money-and-fees.md says: a confirmed RUB pay-in, then an
 * operator's conversion at an explicit rate with the platform's 1 % conversion fee.
 */
import { createHash } from 'node:crypto';
import {
  BackofficeClient,
  createOperator,
  eventually,
  registerAgent,
  runLedgerAudit,
  SignedClient,
  SystemUnderTest,
  type RegisteredAgent,
} from '@mp/shared-testing';
import { newOrderId } from './fixtures';
import { balance, CONVERSION_FEE_BASIS_POINTS, ERC20_ADDRESS, ERC20_FEE, FAILING_ERC20_ADDRESS, fundWith1000Usdt } from './usdt-funding';

const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

describe('withdrawals', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: {
        gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '30000' },
        ledger: { LEDGER_CONVERSION_FEE_BASIS_POINTS: String(CONVERSION_FEE_BASIS_POINTS) },
        // The issue's numbers (66 × 15.00 out of 1,000.00, 10.00 left) assume no network fee on USDT-TRC20.
        withdrawals: {
          WITHDRAWALS_NETWORK_FEES: 'USDT-TRC20=0',
          WITHDRAWALS_SIMULATOR_DELAY_MS: '300',
          WITHDRAWALS_SIMULATOR_FAIL_ADDRESS_PATTERN: `^${FAILING_ERC20_ADDRESS}$`,
          WITHDRAWALS_SEND_INTERVAL_MS: '200',
          WITHDRAWALS_SEND_LEASE_MS: '2000',
        },
      },
    });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  });
  afterAll(async () => system?.stop());

  /** A merchant holding exactly 1,000.00 USDT (see fundWith1000Usdt). */
  async function merchantWith1000Usdt(name: string): Promise<SignedClient> {
    const merchant = await system.createClient(name);
    await fundWith1000Usdt(operator, agent, merchant);
    return merchant;
  }

  async function finalState(merchant: SignedClient, orderId: string): Promise<any> {
    let state: any;
    await eventually(async () => {
      state = (await merchant.get(`/v2/merchant/withdrawals/${encodeURIComponent(orderId)}`)).body;
      return state.status !== 'PENDING';
    });
    return state;
  }

  /** A 30.00 USDT-TRC20 withdrawal whose service is SIGKILLed after the network accepted the send, before the outcome was recorded; the service stays down. */
  async function withdrawal30CrashedAfterTheNetworkSent(merchant: SignedClient, prefix: string): Promise<string> {
    await system.restart('withdrawals', { FAULT_CRASH_AFTER_NETWORK_SEND: 'true' });
    const orderId = newOrderId(prefix);
    expect((await merchant.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 30, currency: 'USDT-TRC20', address: TRON_ADDRESS })).status).toBe(
      201,
    );
    await system.waitForExit('withdrawals');
    return orderId;
  }

  const expectedHash = (merchantId: string, orderId: string) => createHash('sha256').update(`withdrawal:${merchantId}:${orderId}`).digest('hex');

  it('lists the asset table in the methods endpoint', async () => {
    const merchant = await system.createClient('Methods shop');
    const { body } = await merchant.get('/v2/merchant/methods');
    const assets = body.data.filter((entry: { direction: string }) => entry.direction === 'withdrawal');
    expect(assets.map((entry: { currency: string }) => entry.currency).sort()).toEqual(['BTC', 'ETH', 'TRX', 'USDT-ERC20', 'USDT-TRC20']);
    expect(assets.find((entry: { currency: string }) => entry.currency === 'USDT-ERC20')).toMatchObject({
      method: 'ETHEREUM',
      fee: { fixed: ERC20_FEE },
      min_amount: 20,
    });
    expect(assets.find((entry: { currency: string }) => entry.currency === 'USDT-TRC20')).toMatchObject({ method: 'TRON', fee: { fixed: 0 } });
  });

  it('freezes amount + network fee at once, completes with the hash and the ledger takes the hold; a failing send returns the money', async () => {
    const merchant = await merchantWith1000Usdt('Crypto shop');
    const merchantId = merchant.credentials.merchantId;
    const orderId = newOrderId('wd');
    const request = { order_id: orderId, amount: 100, currency: 'USDT-ERC20', address: ERC20_ADDRESS };
    const created = await merchant.post('/v2/merchant/withdrawals', request);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      order_id: orderId,
      status: 'PENDING',
      amount: 100,
      network_fee: ERC20_FEE,
      currency: 'USDT-ERC20',
      network: 'ETHEREUM',
      address: ERC20_ADDRESS,
      transaction_hash: null,
    });
    // Within the same request: the hold was placed before the withdrawal existed.
    expect(await balance(merchant, 'USDT')).toEqual({ available: 1000 - 100 - ERC20_FEE, frozen: 100 + ERC20_FEE });
    // A retry with the same order_id is the same withdrawal; anything different is a duplicate.
    const retry = await merchant.post('/v2/merchant/withdrawals', request);
    expect(retry.status).toBe(201);
    expect(retry.body.created_at).toBe(created.body.created_at);
    const different = await merchant.post('/v2/merchant/withdrawals', { ...request, amount: 101 });
    expect(different.status).toBe(409);
    expect(different.body.error.code).toBe('DUPLICATE_ORDER');

    const completed = await finalState(merchant, orderId);
    expect(completed).toMatchObject({ status: 'COMPLETED', transaction_hash: expectedHash(merchantId, orderId), failure_reason: null });
    await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0);
    expect(await balance(merchant, 'USDT')).toEqual({ available: 1000 - 100 - ERC20_FEE, frozen: 0 });
    const entries = await operator.request('GET', `/backoffice/v1/merchants/${merchantId}/ledger/entries?currency=USDT`);
    const codes = entries.body.data
      .filter((entry: { reference: { id: string } }) => entry.reference.id === orderId)
      .map((entry: { code: string }) => entry.code)
      .sort();
    expect(codes).toEqual(['HOLD_FEE', 'HOLD_PLACED', 'HOLD_POSTED']);
    expect(
      entries.body.data.some((entry: { code: string; reference: { kind: string } }) => entry.code === 'CONVERSION_IN' && entry.reference.kind === 'conversion'),
    ).toBe(true);

    const failingId = newOrderId('wd-fail');
    const failing = await merchant.post('/v2/merchant/withdrawals', {
      order_id: failingId,
      amount: 50,
      currency: 'USDT-ERC20',
      address: FAILING_ERC20_ADDRESS,
    });
    expect(failing.status).toBe(201);
    expect(await balance(merchant, 'USDT')).toEqual({ available: 895 - 50 - ERC20_FEE, frozen: 50 + ERC20_FEE });
    const failed = await finalState(merchant, failingId);
    expect(failed).toMatchObject({ status: 'FAILED', transaction_hash: null, failure_reason: expect.stringContaining('rejected') });
    await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0);
    expect(await balance(merchant, 'USDT')).toEqual({ available: 895, frozen: 0 });

    // The list item and the state response are the same object; newest first; filters work.
    const list = await merchant.post('/v2/merchant/withdrawals/list', {});
    expect(list.status).toBe(200);
    expect(list.body.data.map((item: { order_id: string }) => item.order_id)).toEqual([failingId, orderId]);
    expect(list.body.data[1]).toEqual(completed);
    const onlyFailed = await merchant.post('/v2/merchant/withdrawals/list', { status: 'FAILED', limit: 1 });
    expect(onlyFailed.body).toMatchObject({ data: [failed], has_more: false, next_cursor: null });
    const badFilter = await merchant.post('/v2/merchant/withdrawals/list', { status: 'SUCCEEDED', limit: 0 });
    expect(badFilter.status).toBe(400);
    expect(badFilter.body.error.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['limit', 'status']);
  });

  it('accepts exactly the 66 withdrawals of 15.00 that 1,000.00 covers out of 100 concurrent ones, leaving 10.00', async () => {
    const merchant = await merchantWith1000Usdt('Race shop');
    const orderIds = Array.from({ length: 100 }, () => newOrderId('race'));
    const responses = await Promise.all(
      orderIds.map((orderId) => merchant.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 15, currency: 'USDT-TRC20', address: TRON_ADDRESS })),
    );
    const statuses = responses.map((response) => (response.status === 201 ? 'accepted' : response.body.error.code));
    expect(statuses.filter((status) => status === 'accepted')).toHaveLength(66);
    expect(statuses.filter((status) => status === 'INSUFFICIENT_FUNDS')).toHaveLength(34);
    // Exactly 10.00 is left available at once; the 990.00 is frozen until each send completes (some may have already).
    expect((await balance(merchant, 'USDT')).available).toBe(10);
    // Refused ones were never recorded.
    const refused = orderIds.filter((_, index) => statuses[index] !== 'accepted');
    expect((await merchant.get(`/v2/merchant/withdrawals/${refused[0]}`)).status).toBe(404);
    await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0, Boolean, 'the frozen USDT released', 60_000);
    expect(await balance(merchant, 'USDT')).toEqual({ available: 10, frozen: 0 });
    const page = await merchant.post('/v2/merchant/withdrawals/list', { status: 'COMPLETED', limit: 100 });
    expect(page.body.data).toHaveLength(66);
    const posted = await operator.request('GET', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/ledger/entries?currency=USDT&limit=200`);
    expect(posted.body.data.filter((entry: { code: string }) => entry.code === 'HOLD_POSTED')).toHaveLength(66);
  });

  it('refuses wrong or malformed addresses with INVALID_ADDRESS and the detected network, debiting nothing', async () => {
    const merchant = await merchantWith1000Usdt('Typo shop');
    const cases: Array<{ currency: string; address: string; detected: string | null }> = [
      { currency: 'USDT-ERC20', address: TRON_ADDRESS, detected: 'TRON' },
      { currency: 'USDT-TRC20', address: ERC20_ADDRESS, detected: 'ETHEREUM' },
      { currency: 'USDT-ERC20', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD', detected: null },
      { currency: 'USDT-TRC20', address: ` ${TRON_ADDRESS}`, detected: null },
    ];
    for (const [index, { currency, address, detected }] of cases.entries()) {
      const response = await merchant.post('/v2/merchant/withdrawals', { order_id: `bad-address-${index}`, amount: 25, currency, address });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toBe('INVALID_ADDRESS');
      expect(response.body.error.details[0].field).toBe('address');
      if (detected) expect(response.body.detected_network).toBe(detected);
    }
    const invalid = await merchant.post('/v2/merchant/withdrawals', { order_id: 'bad input', amount: '25', currency: 'DOGE', address: 7, memo: 'x' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('VALIDATION_ERROR');
    expect(invalid.body.error.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['address', 'amount', 'currency', 'memo', 'order_id']);
    expect(await balance(merchant, 'USDT')).toEqual({ available: 1000, frozen: 0 });
    expect((await merchant.post('/v2/merchant/withdrawals/list', {})).body.data).toEqual([]);
  });

  it("answers 404 WITHDRAWAL_NOT_FOUND for another merchant's withdrawal", async () => {
    const owner = await merchantWith1000Usdt('Owner shop');
    const stranger = await system.createClient('Stranger shop');
    const orderId = newOrderId('mine');
    expect((await owner.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 20, currency: 'USDT-TRC20', address: TRON_ADDRESS })).status).toBe(201);
    const response = await stranger.get(`/v2/merchant/withdrawals/${orderId}`);
    expect(response.status).toBe(404);
    expect(response.body.error.code).toBe('WITHDRAWAL_NOT_FOUND');
    expect((await stranger.post('/v2/merchant/withdrawals/list', {})).body.data).toEqual([]);
    await finalState(owner, orderId);
  });

  it('refuses a withdrawal at once with 503 SERVICE_UNAVAILABLE while the ledger is down, writing nothing; the same order_id goes through once it is back', async () => {
    const merchant = await merchantWith1000Usdt('Ledger down shop');
    const orderId = newOrderId('ledger-down');
    await system.kill('ledger');
    try {
      const startedAt = Date.now();
      const refused = await merchant.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 25, currency: 'USDT-TRC20', address: TRON_ADDRESS });
      // Refused by the withdrawals service itself, long before the gateway's 30 s command timeout:
      // a command retried in place would hold up every command behind it on its partition.
      expect(refused.status).toBe(503);
      expect(refused.body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(Date.now() - startedAt).toBeLessThan(15_000);
      expect((await merchant.get(`/v2/merchant/withdrawals/${orderId}`)).status).toBe(404);
    } finally {
      await system.startService('ledger');
    }
    expect((await merchant.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 25, currency: 'USDT-TRC20', address: TRON_ADDRESS })).status).toBe(
      201,
    );
    expect(await finalState(merchant, orderId)).toMatchObject({ status: 'COMPLETED' });
    await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0);
    expect(await balance(merchant, 'USDT')).toEqual({ available: 975, frozen: 0 });
  });

  it('resumes a send interrupted by a crash and sends exactly once', async () => {
    const merchant = await merchantWith1000Usdt('Crash shop');
    const merchantId = merchant.credentials.merchantId;
    const orderId = await withdrawal30CrashedAfterTheNetworkSent(merchant, 'crash');
    expect((await system.query('withdrawals', `SELECT send_progress FROM withdrawals WHERE order_id = $1`, [orderId]))[0]).toEqual({
      send_progress: 'sending',
    });
    await system.startService('withdrawals');
    const state = await finalState(merchant, orderId);
    expect(state).toMatchObject({ status: 'COMPLETED', transaction_hash: expectedHash(merchantId, orderId) });
    const sends = await system.query<{ requests: number }>('withdrawals', `SELECT requests FROM simulated_network_sends WHERE idempotency_key = $1`, [
      `withdrawal:${merchantId}:${orderId}`,
    ]);
    // One send on the network; the resumed attempt presented the same key and got the first result.
    expect(sends).toEqual([{ requests: 2 }]);
    await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0);
    expect(await balance(merchant, 'USDT')).toEqual({ available: 970, frozen: 0 });
  });

  it('lets an operator see a stuck withdrawal and resolve it with a reason', async () => {
    const merchant = await merchantWith1000Usdt('Stuck shop');
    const merchantId = merchant.credentials.merchantId;
    // The sender is down, so the withdrawal stays PENDING.
    await system.kill('withdrawals');
    await system.startService('withdrawals', { WITHDRAWALS_SEND_INTERVAL_MS: '3600000' });
    const orderId = newOrderId('stuck');
    expect((await merchant.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 40, currency: 'USDT-TRC20', address: TRON_ADDRESS })).status).toBe(
      201,
    );
    const stuck = await operator.request('GET', '/backoffice/v1/withdrawals/stuck?older_than_seconds=0');
    expect(stuck.status).toBe(200);
    expect(stuck.body.data.find((item: { order_id: string }) => item.order_id === orderId)).toMatchObject({
      merchant_id: merchantId,
      status: 'PENDING',
      send_progress: 'queued',
    });
    const missingReason = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/${orderId}/resolve`, { outcome: 'failed' });
    expect(missingReason.status).toBe(400);
    const resolved = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/${orderId}/resolve`, {
      outcome: 'failed',
      reason: 'network congestion, refunded',
    });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ status: 'FAILED', failure_reason: expect.stringContaining('network congestion, refunded') });
    const again = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/${orderId}/resolve`, {
      outcome: 'completed',
      reason: 'found it',
      transaction_hash: 'a'.repeat(64),
    });
    expect(again.status).toBe(409);
    await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0);
    expect(await balance(merchant, 'USDT')).toEqual({ available: 1000, frozen: 0 });
    await system.restart('withdrawals');
  });

  /** Waits until the sender has recorded "sending" (the network has the request, or may have). */
  async function untilSending(orderId: string): Promise<void> {
    await eventually(
      async () =>
        (await system.query<{ send_progress: string }>('withdrawals', `SELECT send_progress FROM withdrawals WHERE order_id = $1`, [orderId]))[0]
          ?.send_progress === 'sending',
    );
  }

  const networkSends = (merchantId: string, orderId: string) =>
    system.query<{ outcome: string; requests: number }>('withdrawals', `SELECT outcome, requests FROM simulated_network_sends WHERE idempotency_key = $1`, [
      `withdrawal:${merchantId}:${orderId}`,
    ]);

  describe('an operator failing a withdrawal the network may have sent (race)', () => {
    // A slow network: each send stays "sending" for 4 s, long enough for the operator to act in the middle.
    beforeAll(async () => system.restart('withdrawals', { WITHDRAWALS_SIMULATOR_DELAY_MS: '4000' }));
    afterAll(async () => system.restart('withdrawals'));

    it('operator first: failing a "sending" withdrawal is refused, the network success lands, and the merchant is debited once, never refunded', async () => {
      const merchant = await merchantWith1000Usdt('Race fail-first shop');
      const merchantId = merchant.credentials.merchantId;
      const orderId = newOrderId('race-op-first');
      expect((await merchant.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 40, currency: 'USDT-TRC20', address: TRON_ADDRESS })).status).toBe(
        201,
      );
      await untilSending(orderId);
      const refused = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/${orderId}/resolve`, {
        outcome: 'failed',
        reason: 'looks stuck, refunding',
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({
        code: 'ORDER_STATE_CONFLICT',
        details: [expect.objectContaining({ field: 'send_progress', issue: expect.stringContaining('reconcile') })],
      });
      const state = await finalState(merchant, orderId);
      expect(state).toMatchObject({ status: 'COMPLETED', transaction_hash: expectedHash(merchantId, orderId) });
      expect(await networkSends(merchantId, orderId)).toEqual([{ outcome: 'completed', requests: 1 }]);
      await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0);
      expect(await balance(merchant, 'USDT')).toEqual({ available: 960, frozen: 0 });
    });

    it("network first: the success is recorded, the operator's fail that comes after is refused, and the money stays debited once", async () => {
      const merchant = await merchantWith1000Usdt('Race network-first shop');
      const merchantId = merchant.credentials.merchantId;
      const orderId = newOrderId('race-net-first');
      expect((await merchant.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 40, currency: 'USDT-TRC20', address: TRON_ADDRESS })).status).toBe(
        201,
      );
      expect(await finalState(merchant, orderId)).toMatchObject({ status: 'COMPLETED' });
      const refused = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/${orderId}/resolve`, {
        outcome: 'failed',
        reason: 'looks stuck, refunding',
      });
      expect(refused.status).toBe(409);
      expect(refused.body.error.code).toBe('ORDER_STATE_CONFLICT');
      expect((await merchant.get(`/v2/merchant/withdrawals/${orderId}`)).body.status).toBe('COMPLETED');
      await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0);
      expect(await balance(merchant, 'USDT')).toEqual({ available: 960, frozen: 0 });
      const entries = await operator.request('GET', `/backoffice/v1/merchants/${merchantId}/ledger/entries?currency=USDT`);
      const codes = entries.body.data
        .filter((entry: { reference: { id: string } }) => entry.reference.id === orderId)
        .map((entry: { code: string }) => entry.code)
        .sort();
      // USDT-TRC20 has no network fee in this suite: no HOLD_FEE line.
      expect(codes).toEqual(['HOLD_PLACED', 'HOLD_POSTED']);
    });

    it('reconcile in the middle of a send: the network drops the key, the withdrawal fails with the evidence, and the late answer is a dead letter, not a transfer', async () => {
      const merchant = await merchantWith1000Usdt('Reconcile in-flight shop');
      const merchantId = merchant.credentials.merchantId;
      const orderId = newOrderId('reconcile-drop');
      expect((await merchant.post('/v2/merchant/withdrawals', { order_id: orderId, amount: 40, currency: 'USDT-TRC20', address: TRON_ADDRESS })).status).toBe(
        201,
      );
      await untilSending(orderId);
      const reconciled = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/${orderId}/reconcile`, {});
      expect(reconciled.status).toBe(200);
      expect(reconciled.body).toMatchObject({
        status: 'FAILED',
        reconciliation: {
          asked_by: expect.stringMatching(/^\S+$/),
          idempotency_key: `withdrawal:${merchantId}:${orderId}`,
          network_answer: { status: 'dropped' },
          asked_at: expect.any(String),
        },
      });
      // The send that was in flight reaches the network after the key was dropped: no transfer, and its answer is kept.
      await eventually(
        async () => (await system.query('withdrawals', `SELECT 1 FROM withdrawal_late_network_results WHERE order_id = $1`, [orderId])).length === 1,
      );
      expect(await networkSends(merchantId, orderId)).toEqual([{ outcome: 'dropped', requests: 2 }]);
      const [late] = await system.query(
        'withdrawals',
        `SELECT status_at_arrival, outcome, contradicts FROM withdrawal_late_network_results WHERE order_id = $1`,
        [orderId],
      );
      expect(late).toEqual({ status_at_arrival: 'FAILED', outcome: 'failed', contradicts: false });
      const [counter] = await system.query<{ value: string }>(
        'withdrawals',
        `SELECT value::text FROM withdrawal_metric_counters WHERE metric = 'withdrawal_late_network_results_total' AND labels = 'outcome="failed",contradicts="false"'`,
      );
      expect(Number(counter.value)).toBeGreaterThanOrEqual(1);
      expect(system.outputOf('withdrawals').some((line) => line.includes('late network result') && line.includes(orderId))).toBe(true);
      await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0);
      expect(await balance(merchant, 'USDT')).toEqual({ available: 1000, frozen: 0 });
    });
  });

  it('reconciles a withdrawal left in "sending" by a crash: the network says it went out, so it completes and the merchant is not refunded', async () => {
    const merchant = await merchantWith1000Usdt('Reconcile crash shop');
    const merchantId = merchant.credentials.merchantId;
    const orderId = await withdrawal30CrashedAfterTheNetworkSent(merchant, 'reconcile-crash');
    // Back up without a sender: the withdrawal stays "sending" until an operator looks.
    await system.startService('withdrawals', { WITHDRAWALS_SEND_INTERVAL_MS: '3600000' });
    const failing = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/${orderId}/resolve`, {
      outcome: 'failed',
      reason: 'stuck, refunding',
    });
    expect(failing.status).toBe(409);
    const missing = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/wd-no-such-order/reconcile`, {});
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('WITHDRAWAL_NOT_FOUND');
    const reconciled = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/${orderId}/reconcile`, {});
    expect(reconciled.status).toBe(200);
    expect(reconciled.body).toMatchObject({
      status: 'COMPLETED',
      transaction_hash: expectedHash(merchantId, orderId),
      reconciliation: {
        asked_by: expect.stringMatching(/^\S+$/),
        network_answer: { status: 'completed', transaction_hash: expectedHash(merchantId, orderId) },
      },
    });
    const seen = await operator.request('GET', `/backoffice/v1/withdrawals/${merchantId}/${orderId}`);
    expect(seen.body).toMatchObject({ status: 'COMPLETED', send_progress: 'finished', reconciliation: reconciled.body.reconciliation });
    const again = await operator.request('POST', `/backoffice/v1/withdrawals/${merchantId}/${orderId}/reconcile`, {});
    expect(again.status).toBe(200);
    expect(again.body.status).toBe('COMPLETED');
    expect(await networkSends(merchantId, orderId)).toEqual([{ outcome: 'completed', requests: 1 }]);
    await eventually(async () => (await balance(merchant, 'USDT')).frozen === 0);
    expect(await balance(merchant, 'USDT')).toEqual({ available: 970, frozen: 0 });
    await system.restart('withdrawals');
  });

  it('leaves books the ledger auditor agrees with', async () => {
    const { code, output } = await runLedgerAudit(system);
    expect(output).toContain('OK: every balance equals its postings');
    expect(code).toBe(0);
  });
});
