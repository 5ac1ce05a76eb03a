/**
 * Goal: disputes on pay-ins behave as docs/api/endpoints.md and docs/operations/disputes.md say, through the whole system:
 * the rules (incoming only with one 404 for outgoing and unknown orders, the one-month window,
 * an agent assigned, no open or accepted dispute) each pass and fail; ten concurrent opens give
 * one dispute; open → reject → retry (same id, evidence replaced) → accept moves the order
 * (PENDING while OPEN on endpoints 3 and 4, its own state again after the rejection,
 * SUCCEEDED for the disputed amount after the acceptance) and credits the ledger once with the
 * method's fee, and the ledger auditor agrees afterwards; another merchant's dispute is not
 * found; receipts are limited to 5 MB of PDF, PNG or JPEG.
 * Method: real gateway, payments, disputes, ledger and Kafka started by SystemUnderTest; the
 * disputes service learns orders from payments' events, so the test waits until it knows
 * the order's agent before opening; the window is crossed by moving the disputes clock.
 */
import { spawnSync } from 'node:child_process';
import {
  BackofficeClient,
  builtEntryPoint,
  createOperator,
  eventually,
  registerAgent,
  SignedClient,
  SystemUnderTest,
  type RegisteredAgent,
  type TestResponse,
} from '@mp/shared-testing';
import { disputesKnow as disputesKnowOrder } from './disputable-orders';
import { incomingPayment, newOrderId, RUB_BANK_CARD_METHODS as METHODS } from './fixtures';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('dispute evidence')]);
const PNG_RECEIPT = { file_name: 'transfer.png', content_type: 'image/png', content_base64: PNG.toString('base64') };

/** Not the default (72), so the answers show the setting is read. */
const REVIEW_WINDOW_HOURS = 48;

describe('disputes', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let merchant: SignedClient;
  let otherMerchant: SignedClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: {
        disputes: { TEST_CLOCK_ENABLED: 'true', DISPUTE_REVIEW_WINDOW_HOURS: String(REVIEW_WINDOW_HOURS) },
        gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '30000' },
      },
    });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    merchant = await system.createClient('Dispute shop');
    otherMerchant = await system.createClient('Other shop');
    for (const client of [merchant, otherMerchant]) {
      expect((await operator.request('PUT', `/backoffice/v1/merchants/${client.credentials.merchantId}/methods`, METHODS)).status).toBe(200);
    }
  });
  afterAll(async () => system?.stop());

  const merchantId = () => merchant.credentials.merchantId;

  const disputesKnow = (orderId: string, agentAssigned: boolean, owner = merchant) => disputesKnowOrder(system, owner, orderId, agentAssigned);

  /** A pay-in whose payer pressed "Show payment details", so the agent is assigned. */
  async function payInWithAgent(amount: number, owner = merchant): Promise<string> {
    const orderId = newOrderId('disputed');
    const created = await owner.post('/v2/payments/incoming', incomingPayment(orderId, { amount }));
    expect(created.status).toBe(201);
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    await disputesKnow(orderId, true, owner);
    return orderId;
  }

  const open = (body: Record<string, unknown>, client = merchant) => client.post('/v2/disputes', body);
  const status = async (orderId: string) => (await merchant.get(`/v2/payments/status/${orderId}`)).body;
  const eventuallyStatus = (orderId: string, expected: string) =>
    eventually(
      () => status(orderId),
      (order) => order.status === expected,
      `${orderId} to be ${expected}`,
    );
  const review = (as: 'agent' | 'operator', disputeId: string, decision: 'ACCEPTED' | 'REJECTED', reason?: string) =>
    (as === 'agent' ? agent.client : operator).request('POST', `/backoffice/v1/${as === 'agent' ? 'agent/' : ''}disputes/${merchantId()}/${disputeId}/review`, {
      decision,
      ...(reason ? { reason } : {}),
    });
  const rejection = (response: TestResponse) => ({
    status: response.status,
    code: response.body.error?.code,
    issues: response.body.error?.details?.map((detail: { issue: string }) => detail.issue),
  });
  const availableRub = async () =>
    (await merchant.get('/v2/merchant/balances')).body.settlement.find((entry: { currency: string }) => entry.currency === 'RUB')?.available ?? 0;

  it('answers an outgoing order and an unknown order with the same 404 ORDER_NOT_FOUND', async () => {
    // Funds for a payout: a confirmed pay-in of 1000.00 (fee 21.00).
    const funding = await payInWithAgent(1000);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId()}/${funding}/confirm`, {})).status).toBe(200);
    await eventually(availableRub, (available) => available === 979, 'the funding credit');
    const payoutId = newOrderId('payout');
    const payout = await merchant.post('/v2/payments/outgoing', {
      ...incomingPayment(payoutId, { amount: 100 }),
      method: 'bank_card',
      account_number: '4111 1111 1111 1111',
    });
    expect(payout.status).toBe(201);
    await disputesKnow(payoutId, false);

    const outgoing = await open({ order_id: payoutId, amount: 50, comment: 'x' });
    const unknown = await open({ order_id: newOrderId('missing'), amount: 50, comment: 'x' });
    expect(outgoing.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(outgoing.body.error).toEqual({ code: 'ORDER_NOT_FOUND', message: 'No such incoming order', details: [] });
    expect(unknown.body.error).toEqual(outgoing.body.error);
  });

  it('refuses a pay-in without an agent (PAYMENT_REJECTED) and opens one with an agent', async () => {
    const orderId = newOrderId('no-agent');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 500 }));
    expect(created.status).toBe(201);
    await disputesKnow(orderId, false);
    expect(rejection(await open({ order_id: orderId }))).toEqual({ status: 400, code: 'PAYMENT_REJECTED', issues: ['no_agent_assigned'] });

    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    await disputesKnow(orderId, true);
    const opened = await open({ order_id: orderId });
    expect(opened.status).toBe(201);
    expect(opened.body).toMatchObject({ order_id: orderId, status: 'OPEN', amount: null, comment: null, receipt: null, review: null });
    expect(opened.body.dispute_id).toMatch(/^dsp_[0-9a-f]{24}$/);

    // An open dispute blocks another one.
    const again = await open({ order_id: orderId, comment: 'again' });
    expect(rejection(again)).toEqual({ status: 400, code: 'PAYMENT_REJECTED', issues: ['dispute_already_open'] });
  });

  it('turns ten concurrent opens on one order into one dispute', async () => {
    const orderId = await payInWithAgent(700);
    const answers = await Promise.all(Array.from({ length: 10 }, (_, index) => open({ order_id: orderId, comment: `attempt ${index}` })));
    const created = answers.filter((answer) => answer.status === 201);
    expect(created).toHaveLength(1);
    for (const answer of answers.filter((candidate) => candidate.status !== 201)) {
      expect(rejection(answer)).toEqual({ status: 400, code: 'PAYMENT_REJECTED', issues: ['dispute_already_open'] });
    }
    const rows = await system.query('disputes', 'SELECT dispute_id FROM disputes WHERE merchant_id = $1 AND order_id = $2', [merchantId(), orderId]);
    expect(rows).toEqual([{ dispute_id: created[0].body.dispute_id }]);
  });

  it('open → reject → retry → accept: PENDING while open, the own state after the rejection, SUCCEEDED for the disputed amount, credited once', async () => {
    // A pay-in of 1000.00 the agent declined: FAILED, nothing credited.
    const orderId = await payInWithAgent(1000);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId()}/${orderId}/decline`, { reason: 'no money arrived' })).status).toBe(
      200,
    );
    expect(await status(orderId)).toMatchObject({ status: 'FAILED', amount: 1000 });
    const availableBefore = await availableRub();

    const opened = await open({ order_id: orderId, amount: 900, comment: 'The payer sent 900.00, see the transfer', receipt: PNG_RECEIPT });
    expect(opened.status).toBe(201);
    const disputeId = opened.body.dispute_id;
    const reviewDeadlineOf = (dispute: { updated_at: string }) => new Date(Date.parse(dispute.updated_at) + REVIEW_WINDOW_HOURS * 3_600_000).toISOString();
    expect(opened.body.review_deadline).toBe(reviewDeadlineOf(opened.body));
    expect(opened.body).toMatchObject({
      status: 'OPEN',
      amount: 900,
      currency: 'RUB',
      comment: 'The payer sent 900.00, see the transfer',
      receipt: { file_name: 'transfer.png', content_type: 'image/png', size_bytes: PNG.length },
    });
    await eventuallyStatus(orderId, 'PENDING');
    // Endpoint 4 reports it PENDING too, and its status filter follows what merchants see.
    const pendingList = await merchant.post('/v2/payments/incoming/list', { status: 'PENDING', limit: 100 });
    expect(pendingList.body.data.find((order: { order_id: string }) => order.order_id === orderId)).toMatchObject({ status: 'PENDING' });
    const failedList = await merchant.post('/v2/payments/incoming/list', { status: 'FAILED', limit: 100 });
    expect(failedList.body.data.map((order: { order_id: string }) => order.order_id)).not.toContain(orderId);

    const rejected = await review('agent', disputeId, 'REJECTED', 'the transfer is not ours');
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({
      dispute_id: disputeId,
      status: 'REJECTED',
      review: { decision: 'REJECTED', reason: 'the transfer is not ours' },
      review_deadline: null,
    });
    await eventuallyStatus(orderId, 'FAILED');

    const retried = await open({ order_id: orderId, amount: 950, comment: 'It was 950.00' });
    expect(retried.status).toBe(201);
    expect(retried.body).toMatchObject({ dispute_id: disputeId, status: 'OPEN', amount: 950, comment: 'It was 950.00', receipt: null, review: null });
    // The reopen starts the review window again.
    expect(retried.body.review_deadline).toBe(reviewDeadlineOf(retried.body));
    expect(retried.body.review_deadline > opened.body.review_deadline).toBe(true);
    await eventuallyStatus(orderId, 'PENDING');
    const state = await merchant.get(`/v2/disputes/${disputeId}`);
    expect(state.status).toBe(200);
    expect(state.body).toEqual(retried.body);
    // The earlier evidence is kept in the dispute's history for operators.
    const history = await system.query<{ type: string }>(
      'disputes',
      `SELECT event_type AS type FROM event_store WHERE stream_id = $1 ORDER BY stream_version`,
      [`dispute:${merchantId()}:${orderId}`],
    );
    expect(history.map((event) => event.type)).toEqual(['DisputeOpened', 'DisputeRejected', 'DisputeReopened']);

    const accepted = await review('operator', disputeId, 'ACCEPTED');
    expect(accepted.status).toBe(200);
    expect(accepted.body).toMatchObject({ status: 'ACCEPTED', review: { decision: 'ACCEPTED', settled_amount: 950 }, review_deadline: null });
    const settled = await eventuallyStatus(orderId, 'SUCCEEDED');
    // 2 % of 950.00 plus 1.00: the fee of the order's method for the disputed amount.
    expect(settled).toMatchObject({ status: 'SUCCEEDED', amount: 950, fee: 20 });
    await eventually(availableRub, (available) => Math.round(available * 100) === Math.round(availableBefore * 100) + 93_000, 'the dispute settlement credit');

    expect(rejection(await open({ order_id: orderId }))).toEqual({ status: 400, code: 'PAYMENT_REJECTED', issues: ['dispute_already_accepted'] });
    const listed = await merchant.post('/v2/disputes/list', { status: 'ACCEPTED' });
    expect(listed.status).toBe(200);
    expect(listed.body.data.find((dispute: { dispute_id: string }) => dispute.dispute_id === disputeId)).toEqual(accepted.body);
    // Settled once: a second review changes nothing, and the credit is not repeated.
    expect((await review('operator', disputeId, 'ACCEPTED')).status).toBe(200);
    // A fixed window, not a condition: a repeated credit would arrive within it (nothing to wait for).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(Math.round((await availableRub()) * 100)).toBe(Math.round(availableBefore * 100) + 93_000);

    const audit = spawnSync(process.execPath, [builtEntryPoint('apps/ledger/src/audit.ts')], {
      env: { ...process.env, LEDGER_DATABASE_URL: system.databaseUrl('ledger') },
      encoding: 'utf8',
    });
    expect(audit.status).toBe(0);
  });

  it('leaves a pay-in that already SUCCEEDED as it is when its dispute is accepted: credited once', async () => {
    const orderId = await payInWithAgent(500);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId()}/${orderId}/confirm`, {})).status).toBe(200);
    const confirmed = await eventuallyStatus(orderId, 'SUCCEEDED');
    await disputesKnow(orderId, true);
    // Wait for the confirmation's credit (500.00 − 11.00) before reading the balance.
    await eventually(
      () => system.query('ledger', 'SELECT 1 FROM ledger_credited_orders WHERE merchant_id = $1 AND order_id = $2', [merchantId(), orderId]),
      (rows) => rows.length === 1,
      'the confirmation credit',
    );
    const availableBefore = await availableRub();

    const opened = await open({ order_id: orderId, amount: 400 });
    expect(opened.status).toBe(201);
    await eventuallyStatus(orderId, 'PENDING');
    expect((await review('agent', opened.body.dispute_id, 'ACCEPTED')).status).toBe(200);
    const after = await eventuallyStatus(orderId, 'SUCCEEDED');
    expect(after).toMatchObject({ amount: confirmed.amount, fee: confirmed.fee });
    // A fixed window, not a condition: a wrong credit would arrive within it (nothing to wait for).
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(await availableRub()).toBe(availableBefore);
  });

  it('lists newest first with cursor pages', async () => {
    const first = await open({ order_id: await payInWithAgent(300) });
    const second = await open({ order_id: await payInWithAgent(400) });
    const page = await merchant.post('/v2/disputes/list', { status: 'OPEN', limit: 1 });
    expect(page.body).toMatchObject({ has_more: true, data: [{ dispute_id: second.body.dispute_id }] });
    const next = await merchant.post('/v2/disputes/list', { status: 'OPEN', limit: 1, cursor: page.body.next_cursor });
    expect(next.body.data).toEqual([first.body]);
    expect(rejection(await merchant.post('/v2/disputes/list', { status: 'CLOSED' }))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
  });

  it("finds the dispute of one pay-in with the order_id filter, and none for a pay-in without one or another merchant's", async () => {
    const disputedOrder = await payInWithAgent(330);
    const disputed = await open({ order_id: disputedOrder });
    await open({ order_id: await payInWithAgent(340) });
    const found = await merchant.post('/v2/disputes/list', { order_id: disputedOrder });
    expect([found.status, found.body.data, found.body.has_more]).toEqual([200, [disputed.body], false]);
    expect((await merchant.post('/v2/disputes/list', { order_id: await payInWithAgent(350) })).body.data).toEqual([]);
    expect((await otherMerchant.post('/v2/disputes/list', { order_id: disputedOrder })).body.data).toEqual([]);
    expect(rejection(await merchant.post('/v2/disputes/list', { order_id: 'not an order id!' }))).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    const queue = await operator.request('GET', `/backoffice/v1/disputes?order_id=${encodeURIComponent(disputedOrder)}`);
    expect(queue.body.data.map((dispute: { dispute_id: string }) => dispute.dispute_id)).toEqual([disputed.body.dispute_id]);
  });

  it('gives operators one review queue across merchants, newest first with cursors, and each dispute with its merchant', async () => {
    const mine = await open({ order_id: await payInWithAgent(310) });
    const theirs = await open({ order_id: await payInWithAgent(320, otherMerchant) }, otherMerchant);
    const queue = await operator.request('GET', '/backoffice/v1/disputes?status=OPEN&limit=1');
    expect(queue.status).toBe(200);
    expect([
      queue.body.data.map((dispute: { dispute_id: string; merchant_id: string }) => [dispute.dispute_id, dispute.merchant_id]),
      queue.body.has_more,
    ]).toEqual([[[theirs.body.dispute_id, otherMerchant.credentials.merchantId]], true]);
    const next = await operator.request('GET', `/backoffice/v1/disputes?status=OPEN&limit=1&cursor=${encodeURIComponent(queue.body.next_cursor)}`);
    expect(next.body.data.map((dispute: { dispute_id: string; merchant_id: string }) => [dispute.dispute_id, dispute.merchant_id])).toEqual([
      [mine.body.dispute_id, merchantId()],
    ]);
    const onlyOne = await operator.request('GET', `/backoffice/v1/disputes?merchant_id=${otherMerchant.credentials.merchantId}`);
    expect(new Set(onlyOne.body.data.map((dispute: { merchant_id: string }) => dispute.merchant_id))).toEqual(new Set([otherMerchant.credentials.merchantId]));
    // One dispute as its merchant sees it, plus whose it is; the queue and endpoint 16 agree.
    const one = await operator.request('GET', `/backoffice/v1/disputes/${merchantId()}/${mine.body.dispute_id}`);
    expect(one.body).toEqual({ merchant_id: merchantId(), ...(await merchant.get(`/v2/disputes/${mine.body.dispute_id}`)).body });
    expect((await operator.request('GET', `/backoffice/v1/disputes/${merchantId()}/${theirs.body.dispute_id}`)).status).toBe(404);
    for (const bad of ['status=CLOSED', 'merchant_id=nobody', 'limit=0', 'sort=asc']) {
      const refused = await operator.request('GET', `/backoffice/v1/disputes?${bad}`);
      expect([bad, refused.status, refused.body.error.code]).toEqual([bad, 400, 'VALIDATION_ERROR']);
    }
    // Agents review their own orders' disputes from the agent API; the queue is the operators'.
    expect((await agent.client.request('GET', '/backoffice/v1/disputes')).status).toBe(403);
  });

  it("answers another merchant's dispute like a missing one: 404 DISPUTE_NOT_FOUND", async () => {
    const orderId = await payInWithAgent(600, otherMerchant);
    const theirs = await open({ order_id: orderId }, otherMerchant);
    expect(theirs.status).toBe(201);
    const foreign = await merchant.get(`/v2/disputes/${theirs.body.dispute_id}`);
    const missing = await merchant.get('/v2/disputes/dsp_000000000000000000000000');
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('DISPUTE_NOT_FOUND');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('DISPUTE_NOT_FOUND');
    // Nor can this merchant's name be used to review it.
    expect((await review('operator', theirs.body.dispute_id, 'REJECTED')).status).toBe(404);
  });

  it('takes receipts of PDF, PNG or JPEG up to 5 MB, checked by their bytes', async () => {
    const orderId = await payInWithAgent(800);
    const fiveMegabytes = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024 - PNG.length)]);
    const tooLarge = Buffer.concat([fiveMegabytes, Buffer.alloc(1)]);
    const notAnImage = Buffer.from('MZ this is an executable');
    const withReceipt = (content: Buffer, contentType = 'image/png') => ({
      order_id: orderId,
      receipt: { file_name: 'r.png', content_type: contentType, content_base64: content.toString('base64') },
    });

    expect(rejection(await open(withReceipt(tooLarge)))).toEqual({ status: 400, code: 'VALIDATION_ERROR', issues: [`is ${tooLarge.length} bytes`] });
    expect(rejection(await open(withReceipt(notAnImage)))).toEqual({ status: 400, code: 'VALIDATION_ERROR', issues: ['is not a PDF, PNG or JPEG'] });
    expect(rejection(await open(withReceipt(PNG, 'application/pdf')))).toEqual({ status: 400, code: 'VALIDATION_ERROR', issues: ['the file is image/png'] });
    // Exactly 5 MB fits, base64 in a signed body well over the other endpoints' 64 KiB.
    const opened = await open(withReceipt(fiveMegabytes));
    expect(opened.status).toBe(201);
    expect(opened.body.receipt).toEqual({ file_name: 'r.png', content_type: 'image/png', size_bytes: fiveMegabytes.length });
    // Other endpoints keep their limit.
    expect((await merchant.post('/v2/payments/incoming/list', { cursor: 'x'.repeat(70 * 1024) })).status).toBe(413);
  });

  it('opens until one calendar month (UTC) after the order was created, and not a moment later', async () => {
    const inside = await payInWithAgent(300);
    const outside = await payInWithAgent(300);
    const createdAt = async (orderId: string) => new Date((await status(orderId)).created_at);
    const moveDisputesClock = async (seconds: number): Promise<Date> => {
      const response = await fetch(`${system.urlOf('disputes')}/internal/test/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(await system.internalHeaders('disputes', { as: 'test-harness' })) },
        body: JSON.stringify({ advance_seconds: seconds }),
      });
      expect(response.status).toBe(200);
      return new Date(((await response.json()) as { now: string }).now);
    };
    const now = await moveDisputesClock(0);
    // 30 s before the first order's deadline: inside.
    const insideDeadline = oneMonthAfter(await createdAt(inside));
    await moveDisputesClock(Math.floor((insideDeadline.getTime() - now.getTime()) / 1000) - 30);
    expect((await open({ order_id: inside })).status).toBe(201);
    // 2 s after the second order's deadline: outside.
    const outsideDeadline = oneMonthAfter(await createdAt(outside));
    const later = await moveDisputesClock(0);
    await moveDisputesClock(Math.ceil((outsideDeadline.getTime() - later.getTime()) / 1000) + 2);
    expect(rejection(await open({ order_id: outside }))).toEqual({ status: 400, code: 'PAYMENT_REJECTED', issues: ['opened_too_late'] });
  });
});

/** The documented rule (docs/api/endpoints.md): the same UTC day and time next month, clamped to its last day. */
function oneMonthAfter(createdAt: Date): Date {
  const lastDay = new Date(Date.UTC(createdAt.getUTCFullYear(), createdAt.getUTCMonth() + 2, 0)).getUTCDate();
  const deadline = new Date(createdAt);
  deadline.setUTCDate(1);
  deadline.setUTCMonth(createdAt.getUTCMonth() + 1);
  deadline.setUTCDate(Math.min(createdAt.getUTCDate(), lastDay));
  return deadline;
}
