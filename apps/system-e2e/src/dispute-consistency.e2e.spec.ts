/**
 * Goal: what a merchant reads agrees with the dispute it was told about, and disputes keep only
 * the money and files they should (docs/api/endpoints.md, docs/operations/disputes.md):
 * - read-your-writes: once `POST /v2/disputes` answered 201, the order reads PENDING on every
 *   read (endpoint 3, endpoint 4, the agent's view), with no pause in between, 50 times; once
 *   `GET /v2/disputes/{id}` shows a review's outcome, the order's status agrees with it;
 * - the disputed amount is capped at the order's amount (VALIDATION_ERROR beyond it);
 * - the receipt: reviewers (the order's agent, operators) download it, each download is logged
 *   (who, when, which); another agent gets 404;
 * - receipts live only with accepted opens: 100 rejected opens leave no file, a reopen removes
 *   the receipt it replaces, and the periodic sweep collects files no open ever claimed;
 * - with payments down, an open answers 503, never a 201 the order contradicts; once payments is
 *   back the order reads PENDING and a retry names the dispute that was opened.
 * Method: real gateway, payments, disputes, ledger and Kafka (SystemUnderTest); the reads follow
 * each answer at once, so any lag between the services' projections would show.
 */
import { BackofficeClient, createOperator, registerAgent, SignedClient, SystemUnderTest, type RegisteredAgent, type TestResponse } from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { disputesKnow } from './disputable-orders';
import { incomingPayment, newOrderId } from './fixtures';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('dispute evidence A')]);
const OTHER_PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('dispute evidence B, longer')]);
const receiptOf = (content: Buffer, fileName = 'transfer.png') => ({
  file_name: fileName,
  content_type: 'image/png',
  content_base64: content.toString('base64'),
});

const METHODS = {
  entries: [
    {
      method: 'bank_card',
      direction: 'incoming',
      country: 'RU',
      currency: 'RUB',
      fee_rate_basis_points: 200,
      fee_fixed_minor: '100',
      min_amount_minor: '100',
      max_amount_minor: '100000000',
      expiry_minutes: 30,
    },
  ],
};

describe('dispute consistency, amount cap and receipts', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let otherAgent: RegisteredAgent;
  let merchant: SignedClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: {
        disputes: { DISPUTES_RECEIPT_SWEEP_INTERVAL_MS: '500', DISPUTES_RECEIPT_ORPHAN_GRACE_MS: '600000' },
        gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '8000' },
      },
    });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    merchant = await system.createClient('Consistent shop');
    expect((await operator.request('PUT', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/methods`, METHODS)).status).toBe(200);
  });
  afterAll(async () => system?.stop());

  const merchantId = () => merchant.credentials.merchantId;
  const open = (body: Record<string, unknown>) => merchant.post('/v2/disputes', body);
  const statusOf = async (orderId: string) => (await merchant.get(`/v2/payments/status/${orderId}`)).body.status;
  const review = (disputeId: string, decision: 'ACCEPTED' | 'REJECTED') =>
    operator.request('POST', `/backoffice/v1/disputes/${merchantId()}/${disputeId}/review`, { decision });
  const rejection = (response: TestResponse) => ({ status: response.status, code: response.body.error?.code, details: response.body.error?.details });

  /** Pay-ins with the agent assigned; `decline` makes them FAILED, the state a dispute overlays. */
  async function payIns(count: number, amount: number, decline: boolean): Promise<string[]> {
    const orderIds: string[] = [];
    for (let start = 0; start < count; start += 10) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(10, count - start) }, async () => {
          const orderId = newOrderId('consistent');
          const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount }));
          expect(created.status).toBe(201);
          expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
          if (decline)
            expect(
              (await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId()}/${orderId}/decline`, { reason: 'nothing arrived' })).status,
            ).toBe(200);
          return orderId;
        }),
      );
      orderIds.push(...batch);
    }
    for (const orderId of orderIds) {
      await disputesKnow(system, merchant, orderId, true);
      if (decline)
        await eventually(
          () => statusOf(orderId),
          (status) => status === 'FAILED',
          `${orderId} to be FAILED`,
          20_000,
        );
    }
    return orderIds;
  }

  /** Polls the dispute as a merchant would, with no pause, until it shows `status`. */
  async function untilDisputeShows(disputeId: string, status: string): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (Date.now() < deadline) {
      if ((await merchant.get(`/v2/disputes/${disputeId}`)).body.status === status) return;
    }
    throw new Error(`dispute ${disputeId} never showed ${status}`);
  }

  it('reads PENDING on every read straight after each of 50 opens, and the review outcome once the dispute shows it', async () => {
    const orderIds = await payIns(50, 1000, true);
    const disputeIds: string[] = [];
    const seen: string[] = [];
    for (const orderId of orderIds) {
      const opened = await open({ order_id: orderId, amount: 900 });
      expect(opened.status).toBe(201);
      disputeIds.push(opened.body.dispute_id);
      const status = await statusOf(orderId);
      const agentView = (await agent.client.request('GET', `/backoffice/v1/agent/orders/${merchantId()}/${orderId}`)).body.status;
      const listed = (await merchant.post('/v2/payments/incoming/list', { status: 'PENDING', limit: 100 })).body.data.some(
        (order: { order_id: string }) => order.order_id === orderId,
      );
      seen.push(`${status}/${agentView}/${listed ? 'listed' : 'missing'}`);
    }
    expect(seen).toEqual(orderIds.map(() => 'PENDING/PENDING/listed'));

    // Once the dispute shows the outcome, the order agrees: the first ten rejected, the next ten accepted.
    const afterReview: string[] = [];
    for (const [index, disputeId] of disputeIds.slice(0, 20).entries()) {
      const decision = index < 10 ? 'REJECTED' : 'ACCEPTED';
      expect((await review(disputeId, decision)).status).toBe(200);
      await untilDisputeShows(disputeId, decision);
      afterReview.push(`${decision}:${await statusOf(orderIds[index])}`);
    }
    expect(afterReview).toEqual([...Array(10).fill('REJECTED:FAILED'), ...Array(10).fill('ACCEPTED:SUCCEEDED')]);
  });

  it('caps the disputed amount at the order amount', async () => {
    const [orderId] = await payIns(1, 500, true);
    const tooMuch = await open({ order_id: orderId, amount: 500.01 });
    expect(rejection(tooMuch)).toEqual({
      status: 400,
      code: 'VALIDATION_ERROR',
      details: [{ field: 'amount', issue: 'must be at most 500.00 RUB: the order amount less what accepted disputes on it settled' }],
    });
    const exactly = await open({ order_id: orderId, amount: 500 });
    expect(exactly.status).toBe(201);
    expect((await review(exactly.body.dispute_id, 'ACCEPTED')).status).toBe(200);
    await untilDisputeShows(exactly.body.dispute_id, 'ACCEPTED');
    expect((await merchant.get(`/v2/payments/status/${orderId}`)).body).toMatchObject({ status: 'SUCCEEDED', amount: 500 });
  });

  it('lets the order’s agent and operators download the receipt, logging who, when and which; another agent gets 404', async () => {
    // Serves another method, so the payer page never assigns it this test's orders.
    otherAgent = await registerAgent(system, operator, [{ method: 'sbp', country: 'RU', currency: 'RUB' }], { display_name: 'Other agent' });
    const [orderId] = await payIns(1, 800, true);
    const opened = await open({ order_id: orderId, receipt: receiptOf(PNG) });
    expect(opened.status).toBe(201);
    const disputeId = opened.body.dispute_id;
    const download = (client: BackofficeClient, prefix: string) =>
      fetch(`${system.gatewayUrl}/backoffice/v1/${prefix}disputes/${merchantId()}/${disputeId}/receipt`, {
        headers: { authorization: `Bearer ${client.token}` },
      });

    const byOperator = await download(operator, '');
    expect(byOperator.status).toBe(200);
    expect(byOperator.headers.get('content-type')).toBe('image/png');
    expect(byOperator.headers.get('content-disposition')).toBe('attachment; filename="transfer.png"');
    expect(Buffer.from(await byOperator.arrayBuffer())).toEqual(PNG);
    const byAgent = await download(agent.client, 'agent/');
    expect(byAgent.status).toBe(200);
    expect(Buffer.from(await byAgent.arrayBuffer())).toEqual(PNG);
    const byOtherAgent = await download(otherAgent.client, 'agent/');
    expect(byOtherAgent.status).toBe(404);
    expect(((await byOtherAgent.json()) as { error: { code: string } }).error.code).toBe('DISPUTE_NOT_FOUND');
    // A merchant signature never works on the back office.
    expect((await merchant.get(`/backoffice/v1/disputes/${merchantId()}/${disputeId}/receipt`)).status).toBe(401);

    const log = await operator.request('GET', `/backoffice/v1/disputes/receipt-downloads?merchant_id=${merchantId()}&dispute_id=${disputeId}`);
    expect(log.status).toBe(200);
    expect(
      log.body.data.map((entry: Record<string, unknown>) => [
        entry['reviewer_role'],
        entry['reviewer_id'] === agent.agentId,
        entry['order_id'],
        entry['file_name'],
      ]),
    ).toEqual([
      ['agent', true, orderId, 'transfer.png'],
      ['operator', false, orderId, 'transfer.png'],
    ]);
    expect(new Date(log.body.data[0].downloaded_at).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(rejection(await operator.request('GET', '/backoffice/v1/disputes/receipt-downloads?who=me'))).toMatchObject({
      status: 400,
      code: 'VALIDATION_ERROR',
    });
  });

  it('keeps no receipt of 100 rejected opens, removes the one a reopen replaces, and sweeps files no open claimed', async () => {
    const receiptCount = async () =>
      Number((await system.query<{ count: string }>('disputes', 'SELECT count(*) FROM dispute_receipts WHERE merchant_id = $1', [merchantId()]))[0].count);
    const [alreadyOpen, noAgentYet] = await Promise.all([
      payIns(1, 700, true),
      (async () => {
        const orderId = newOrderId('no-agent');
        expect((await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 700 }))).status).toBe(201);
        await disputesKnow(system, merchant, orderId, false);
        return [orderId];
      })(),
    ]);
    const first = await open({ order_id: alreadyOpen[0], receipt: receiptOf(PNG) });
    expect(first.status).toBe(201);
    const before = await receiptCount();

    const rejectedOpens = Array.from({ length: 100 }, (_, index) => {
      if (index % 4 === 0) return { order_id: newOrderId('missing'), receipt: receiptOf(PNG) };
      if (index % 4 === 1) return { order_id: noAgentYet[0], receipt: receiptOf(PNG) };
      if (index % 4 === 2) return { order_id: alreadyOpen[0], receipt: receiptOf(OTHER_PNG) };
      return { order_id: alreadyOpen[0], amount: 1.234, receipt: receiptOf(PNG) };
    });
    for (let start = 0; start < rejectedOpens.length; start += 10) {
      const answers = await Promise.all(rejectedOpens.slice(start, start + 10).map((body) => open(body)));
      expect(answers.map((answer) => answer.status).filter((status) => status === 201)).toEqual([]);
    }
    expect(await receiptCount()).toBe(before);

    // A reopen replaces the receipt: the old file goes with it.
    expect((await review(first.body.dispute_id, 'REJECTED')).status).toBe(200);
    const reopened = await open({ order_id: alreadyOpen[0], receipt: receiptOf(OTHER_PNG, 'second.png') });
    expect(reopened.status).toBe(201);
    expect(await receiptCount()).toBe(before);
    const downloaded = await fetch(`${system.gatewayUrl}/backoffice/v1/disputes/${merchantId()}/${first.body.dispute_id}/receipt`, {
      headers: { authorization: `Bearer ${operator.token}` },
    });
    expect(Buffer.from(await downloaded.arrayBuffer())).toEqual(OTHER_PNG);

    // A file stored for an open that never came (the gateway gave up): swept once older than the grace period.
    const stored = await fetch(`${system.urlOf('disputes')}/internal/merchants/${merchantId()}/dispute-receipts`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'x-file-name': 'lost.png', ...(await system.internalHeaders('disputes')) },
      body: PNG,
    });
    expect(stored.status).toBe(201);
    expect(await receiptCount()).toBe(before + 1);
    await system.query('disputes', `UPDATE dispute_receipts SET stored_at = now() - interval '1 hour' WHERE merchant_id = $1`, [merchantId()]);
    await eventually(receiptCount, (count) => count === before, 'the orphan receipt to be swept', 20_000);
    const kept = await fetch(`${system.gatewayUrl}/backoffice/v1/disputes/${merchantId()}/${first.body.dispute_id}/receipt`, {
      headers: { authorization: `Bearer ${operator.token}` },
    });
    expect(kept.status).toBe(200);
  });

  it('answers 503 while payments is down, never a 201 the order would contradict; afterwards the order is PENDING and a retry names the dispute', async () => {
    const [orderId] = await payIns(1, 600, true);
    await system.kill('payments');
    try {
      expect(rejection(await open({ order_id: orderId }))).toMatchObject({ status: 503, code: 'SERVICE_UNAVAILABLE' });
    } finally {
      await system.restart('payments');
    }
    await eventually(
      () => statusOf(orderId),
      (status) => status === 'PENDING',
      `${orderId} to be PENDING`,
      20_000,
    );
    const listed = (await merchant.post('/v2/disputes/list', { status: 'OPEN', limit: 100 })).body.data.find(
      (dispute: { order_id: string }) => dispute.order_id === orderId,
    );
    expect(listed).toMatchObject({ status: 'OPEN', dispute_id: expect.stringMatching(/^dsp_/) });
    const retry = await open({ order_id: orderId });
    expect(rejection(retry)).toEqual({ status: 400, code: 'PAYMENT_REJECTED', details: [{ field: 'order_id', issue: 'dispute_already_open' }] });
    expect(retry.body.dispute_id).toBe(listed.dispute_id);
  });
});
