/**
 * Goal: the whole pay-in lifecycle and the merchant's view of it, end to end: create, the
 * payer asks the payer page for payment details (which assigns an agent), reports paying, the agent confirms or declines; time
 * expires what nobody finished; merchants cancel what may be cancelled; nobody sees anyone
 * else's orders; each kind of credential works only on its own API. Method: the real gateway,
 * payments service and Kafka, an operator and an agent created the way an operator would,
 * and the payments service's clock moved through its test-only endpoint.
 */
import {
  BackofficeClient,
  createOperator,
  eventually,
  registerAgent,
  SignedClient,
  SystemUnderTest,
  TEST_MERCHANT_DEFAULT_CALLBACK_URL,
  type RegisteredAgent,
} from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('payment lifecycle', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let otherMerchant: SignedClient;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;

  beforeAll(async () => {
    system = await SystemUnderTest.start({ env: { payments: { TEST_CLOCK_ENABLED: 'true', PAYMENTS_EXPIRY_SWEEP_INTERVAL_MS: '3600000' } } });
    merchant = await system.createClient('Lifecycle shop');
    otherMerchant = await system.createClient('Other shop');
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  });
  afterAll(async () => system?.stop());

  async function createPayIn(orderId = newOrderId('payin'), amount = 1500.5) {
    const response = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount }));
    expect(response.status).toBe(201);
    return { orderId, token: String(response.body.redirect_url).split('/pay/')[1] };
  }

  const status = async (orderId: string) => (await merchant.get(`/v2/payments/status/${orderId}`)).body;
  /** The payer presses "Show payment details": the form post that assigns an agent (a GET of the page never does). */
  const openPayerPage = (token: string) => fetch(`${system.gatewayUrl}/pay/${token}/details`, { method: 'POST', redirect: 'manual' });
  const reportPaid = (token: string) => fetch(`${system.gatewayUrl}/pay/${token}/paid`, { method: 'POST', redirect: 'manual' });
  const agentAction = (action: string, orderId: string, body: object = {}) =>
    agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/${action}`, body);
  const cancel = (orderId: string, client = merchant) => client.post(`/v2/payments/${orderId}/cancel`, {});
  const availableRub = async (): Promise<number> => {
    const balances = await merchant.get('/v2/merchant/balances');
    return balances.body.settlement.find((entry: { currency: string }) => entry.currency === 'RUB')?.available ?? 0;
  };
  /** Waits for the ledger to show `startMinor + changeMinor` (minor units, so no float drift). */
  const eventuallyAvailable = async (startRub: number, changeMinor: number) => {
    const expected = (Math.round(startRub * 100) + changeMinor) / 100;
    await eventually(availableRub, (available) => available === expected, `${expected} RUB available`, 20_000);
  };
  const advanceClock = async (seconds: number) => {
    const response = await fetch(`${system.paymentsUrl}/internal/test/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await system.internalHeaders('payments', { as: 'test-harness' })) },
      body: JSON.stringify({ advance_seconds: seconds }),
    });
    expect(response.status).toBe(200);
    return response.json();
  };

  describe('a pay-in', () => {
    it('succeeds: payer page assigns the agent, the payer reports paying, the agent confirms', async () => {
      const { orderId, token } = await createPayIn();
      expect(await status(orderId)).toMatchObject({ status: 'PENDING', sub_status: 'awaiting_agent', fee: 37.51, method: 'bank_card' });

      expect((await openPayerPage(token)).status).toBe(303);
      expect(await status(orderId)).toMatchObject({ status: 'PENDING', sub_status: 'agent_assigned' });
      const assigned = await agent.client.request('GET', '/backoffice/v1/agent/orders');
      expect(assigned.body.data.map((order: { order_id: string }) => order.order_id)).toContain(orderId);

      expect((await reportPaid(token)).status).toBe(303);
      expect(await status(orderId)).toMatchObject({ status: 'PENDING', sub_status: 'payer_reported_paid' });

      const confirmed = await agentAction('confirm', orderId);
      expect(confirmed.status).toBe(200);
      expect(await status(orderId)).toMatchObject({ status: 'SUCCEEDED', sub_status: null });
    });

    it('fails when the agent declines', async () => {
      const { orderId, token } = await createPayIn();
      await openPayerPage(token);
      const declined = await agentAction('decline', orderId, { reason: 'no money arrived' });
      expect(declined.status).toBe(200);
      expect(await status(orderId)).toMatchObject({ status: 'FAILED', failure_reason: 'no money arrived' });
    });

    it('expires after 30 minutes unless the payer reported paying', async () => {
      const idle = await createPayIn();
      const paid = await createPayIn();
      await openPayerPage(paid.token);
      await reportPaid(paid.token);
      await advanceClock(29 * 60);
      expect((await status(idle.orderId)).status).toBe('PENDING');
      await advanceClock(2 * 60);
      expect((await status(idle.orderId)).status).toBe('EXPIRED');
      expect(await status(paid.orderId)).toMatchObject({ status: 'PENDING', sub_status: 'payer_reported_paid' });
    });

    it('cannot be confirmed by another agent, who does not even see it', async () => {
      const second = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }], { display_name: 'Second agent' });
      const { orderId, token } = await createPayIn();
      await openPayerPage(token);
      const view = await operator.request('GET', `/backoffice/v1/orders/${merchant.credentials.merchantId}/${orderId}`);
      expect(view.body.agent_id).toMatch(/^agt_/);
      const outsider = view.body.agent_id === agent.agentId ? second : agent;
      const attempt = await outsider.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {});
      expect([attempt.status, attempt.body.error.code]).toEqual([404, 'ORDER_NOT_FOUND']);
      expect((await outsider.client.request('GET', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}`)).status).toBe(404);
      expect((await status(orderId)).status).toBe('PENDING');
    });
  });

  describe('the payer link', () => {
    /** How many times payments answered the internal order read (the status read's route), from its own metrics. */
    const orderReadsServed = async (): Promise<number> => {
      const exposition = await (await fetch(`${system.paymentsUrl}/metrics`)).text();
      const line = exposition
        .split('\n')
        .find(
          (candidate) =>
            candidate.startsWith('http_server_request_duration_seconds_count{') &&
            candidate.includes('route="/internal/merchants/:merchantId/orders/:orderId"') &&
            candidate.includes('method="GET"'),
        );
      return line ? Number(line.split(' ').pop()) : 0;
    };

    it("comes back with a create, its replay and a cancel without an order read from payments, and equals the status read's", async () => {
      const orderId = newOrderId('link');
      const readsBefore = await orderReadsServed();
      const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
      const replayed = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
      const cancelled = await cancel(orderId);
      expect([created.status, replayed.status, cancelled.status]).toEqual([201, 201, 200]);
      expect(created.body.redirect_url).toMatch(new RegExp(`^${system.gatewayUrl}/pay/[A-Za-z0-9_-]{20,}$`));
      expect(replayed.text).toBe(created.text);
      expect(cancelled.body.redirect_url).toBe(created.body.redirect_url);
      expect(await orderReadsServed()).toBe(readsBefore);

      expect((await status(orderId)).redirect_url).toBe(created.body.redirect_url);
      expect(await orderReadsServed()).toBe(readsBefore + 1);
    });
  });

  describe('cancel (endpoint 6)', () => {
    it('cancels a pending pay-in, with or without an agent, and refuses a repeated cancel naming the status', async () => {
      const waiting = await createPayIn();
      const first = await cancel(waiting.orderId);
      expect([first.status, first.body.status]).toEqual([200, 'CANCELLED']);
      const again = await cancel(waiting.orderId);
      expect([again.status, again.body.error.code, again.body.error.details]).toEqual([
        409,
        'ORDER_NOT_CANCELLABLE',
        [{ field: 'status', issue: 'CANCELLED' }],
      ]);

      const assigned = await createPayIn();
      await openPayerPage(assigned.token);
      expect((await cancel(assigned.orderId)).body.status).toBe('CANCELLED');
    });

    it('refuses to cancel once the payer reported paying, and every finished order', async () => {
      const reported = await createPayIn();
      await openPayerPage(reported.token);
      await reportPaid(reported.token);
      const refused = await cancel(reported.orderId);
      expect([refused.status, refused.body.error.code]).toEqual([409, 'ORDER_NOT_CANCELLABLE']);

      await agentAction('confirm', reported.orderId);
      const declined = await createPayIn();
      await openPayerPage(declined.token);
      await agentAction('decline', declined.orderId, { reason: 'test' });
      for (const orderId of [reported.orderId, declined.orderId]) {
        const response = await cancel(orderId);
        expect([response.status, response.body.error.code]).toEqual([409, 'ORDER_NOT_CANCELLABLE']);
      }
    });

    it('cancels a pending payout (returning its hold) and refuses a taken, completed, declined or expired one', async () => {
      const before = await availableRub();
      const funding = await createPayIn(newOrderId('funding'), 20_000);
      await openPayerPage(funding.token);
      expect((await agentAction('confirm', funding.orderId)).status).toBe(200);
      // 20,000.00 − 2.5 % = 19,500.00; each payout of 1,000.00 holds 1,000.00 + 1.5 % + 50.00 = 1,065.00.
      await eventuallyAvailable(before, 1_950_000);
      const payoutOf = async (prefix: string) => {
        const orderId = newOrderId(prefix);
        const response = await merchant.post('/v2/payments/outgoing', {
          ...incomingPayment(orderId, { amount: 1000 }),
          method: 'bank_card',
          account_number: '40817810099910004312',
        });
        expect([response.status, response.body.fee]).toEqual([201, 65]);
        return orderId;
      };
      const [pending, taken, completed, declined, expiring] = [
        await payoutOf('pending'),
        await payoutOf('taken'),
        await payoutOf('completed'),
        await payoutOf('declined'),
        await payoutOf('expiring'),
      ];
      for (const orderId of [taken, completed, declined]) expect((await agentAction('take', orderId)).status).toBe(200);
      const receipt = await agent.client.request(
        'POST',
        `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${completed}/receipts`,
        Buffer.from('%PDF-1.7 transfer confirmation'),
        { 'x-file-name': 'transfer.pdf' },
      );
      expect((await agentAction('complete', completed, { receipt_id: receipt.body.receipt_id })).body.status).toBe('SUCCEEDED');
      expect((await agentAction('decline', declined, { reason: 'account closed' })).body.status).toBe('FAILED');

      const cancelled = await cancel(pending);
      expect([cancelled.status, cancelled.body.status, cancelled.body.direction]).toEqual([200, 'CANCELLED', 'outgoing']);
      const cancelledAgain = await cancel(pending);
      expect([cancelledAgain.status, cancelledAgain.body.error.code, cancelledAgain.body.error.details]).toEqual([
        409,
        'ORDER_NOT_CANCELLABLE',
        [{ field: 'status', issue: 'CANCELLED' }],
      ]);
      await advanceClock(24 * 60 * 60 + 60);
      expect((await status(expiring)).status).toBe('EXPIRED');
      expect((await status(taken)).status).toBe('PENDING');
      for (const orderId of [taken, completed, declined, expiring]) {
        const refused = await cancel(orderId);
        expect([orderId, refused.status, refused.body.error.code]).toEqual([orderId, 409, 'ORDER_NOT_CANCELLABLE']);
      }
      // Held now: only the taken payout; the completed one was paid out, the rest came back.
      await eventuallyAvailable(before, 1_950_000 - 2 * 106_500);
    });

    it('answers a captured cancel replayed within the timestamp window with the error, not a success', async () => {
      const { orderId } = await createPayIn();
      // The identical request twice: same timestamp, path and body, so the same signature.
      const captured = { method: 'POST' as const, path: `/v2/payments/${orderId}/cancel`, body: {}, timestampSeconds: Math.floor(Date.now() / 1000) };
      const original = await merchant.request(captured);
      expect([original.status, original.body.status]).toEqual([200, 'CANCELLED']);
      const replayed = await merchant.request(captured);
      expect([replayed.status, replayed.body.error.code, replayed.body.error.details]).toEqual([
        409,
        'ORDER_NOT_CANCELLABLE',
        [{ field: 'status', issue: 'CANCELLED' }],
      ]);
      expect(replayed.body.error.message).toContain('CANCELLED');
      expect((await status(orderId)).status).toBe('CANCELLED');
    });

    it('requires a body and signs it with the path', async () => {
      const { orderId } = await createPayIn();
      const empty = await merchant.request({ method: 'POST', path: `/v2/payments/${orderId}/cancel` });
      expect([empty.status, empty.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      const other = await createPayIn();
      const replayed = await merchant.request({
        method: 'POST',
        path: `/v2/payments/${other.orderId}/cancel`,
        body: {},
        signedPath: `/v2/payments/${orderId}/cancel`,
      });
      expect([replayed.status, replayed.body.error.code]).toEqual([401, 'INVALID_SIGNATURE']);
      expect((await status(other.orderId)).status).toBe('PENDING');
    });
  });

  describe('isolation', () => {
    it("answers 404 on every endpoint for another merchant's order", async () => {
      const { orderId } = await createPayIn();
      const attempts = [
        await otherMerchant.get(`/v2/payments/status/${orderId}`),
        await cancel(orderId, otherMerchant),
        await otherMerchant.get(`/v2/payments/${orderId}/receipts`),
      ];
      expect(attempts.map((response) => [response.status, response.body.error.code])).toEqual(Array(3).fill([404, 'ORDER_NOT_FOUND']));
      const list = await otherMerchant.post('/v2/payments/incoming/list', {});
      expect(list.body.data.map((order: { order_id: string }) => order.order_id)).not.toContain(orderId);
      expect((await status(orderId)).status).toBe('PENDING');
    });

    it('gives an agent one identical 404 for orders it may not see, whether they exist or not', async () => {
      // Serves INR only, so no RUB pay-in of this file is ever assigned to it.
      const prober = await registerAgent(system, operator, [{ method: 'bank_card', country: 'IN', currency: 'INR' }], { display_name: 'Prober' });
      const assignedElsewhere = await createPayIn();
      await openPayerPage(assignedElsewhere.token);
      expect((await status(assignedElsewhere.orderId)).sub_status).toBe('agent_assigned');
      const otherMerchantsOrder = newOrderId('other');
      expect((await otherMerchant.post('/v2/payments/incoming', incomingPayment(otherMerchantsOrder))).status).toBe(201);
      const probes: Array<[string, string]> = [
        [merchant.credentials.merchantId, assignedElsewhere.orderId],
        [otherMerchant.credentials.merchantId, otherMerchantsOrder],
        [merchant.credentials.merchantId, newOrderId('missing')],
        [otherMerchant.credentials.merchantId, newOrderId('missing')],
      ];
      const actions: Array<[method: 'GET' | 'POST', suffix: string, body?: object]> = [
        ['GET', ''],
        ['POST', '/confirm', {}],
        ['POST', '/decline', { reason: 'probe' }],
        ['POST', '/take', {}],
        ['POST', '/complete', { receipt_id: `rcp_${'0'.repeat(24)}` }],
      ];
      for (const [method, suffix, body] of actions) {
        const answers = [];
        for (const [merchantId, orderId] of probes) {
          const response = await prober.client.request(method, `/backoffice/v1/agent/orders/${merchantId}/${orderId}${suffix}`, body);
          expect(response.body.request_id).toMatch(/^req_/);
          answers.push({ status: response.status, body: { ...response.body, request_id: '(differs)' } });
        }
        expect(answers[0]).toEqual({
          status: 404,
          body: { error: { code: 'ORDER_NOT_FOUND', message: 'No such order for this agent', details: [] }, request_id: '(differs)' },
        });
        for (const answer of answers) expect([method, suffix, answer]).toEqual([method, suffix, answers[0]]);
      }
      expect(await status(assignedElsewhere.orderId)).toMatchObject({ status: 'PENDING', sub_status: 'agent_assigned' });
    });

    it('refuses agent and operator credentials on /v2 and merchant credentials on the back office', async () => {
      for (const token of [operator.token, agent.client.token]) {
        const response = await fetch(`${system.gatewayUrl}/v2/merchant`, { headers: { authorization: `Bearer ${token}` } });
        expect(response.status).toBe(401);
        expect(((await response.json()) as { error: { code: string } }).error.code).toBe('MISSING_AUTH_HEADER');
      }
      const signedByMerchant = await merchant.request({ method: 'GET', path: '/backoffice/v1/agent/orders' });
      expect([signedByMerchant.status, signedByMerchant.body.error.code]).toEqual([401, 'MISSING_AUTH_HEADER']);
      const merchantSecretAsToken = new BackofficeClient(system.gatewayUrl, merchant.credentials.apiSecret);
      expect((await merchantSecretAsToken.request('GET', '/backoffice/v1/agent/orders')).status).toBe(401);
      const agentOnOperatorRoute = await agent.client.request('POST', '/backoffice/v1/merchants', { name: 'Sneaky' });
      expect([agentOnOperatorRoute.status, agentOnOperatorRoute.body.error.code]).toEqual([403, 'FORBIDDEN']);
    });
  });

  describe('merchant information', () => {
    it('shows the profile without secrets and the methods with their fees', async () => {
      const profile = await merchant.get('/v2/merchant');
      expect(profile.body).toEqual({
        merchant_id: merchant.credentials.merchantId,
        name: 'Lifecycle shop',
        status: 'active',
        default_callback_url: TEST_MERCHANT_DEFAULT_CALLBACK_URL,
        default_callback_url_disabled: false,
        default_return_url: null,
        created_at: expect.any(String),
      });
      expect(profile.text).not.toContain(merchant.credentials.apiSecret);
      const methods = await merchant.get('/v2/merchant/methods');
      expect(methods.body.data).toContainEqual({
        method: 'bank_card',
        direction: 'incoming',
        country: 'RU',
        currency: 'RUB',
        fee: { percent: 2.5, fixed: 0 },
        min_amount: 100,
        max_amount: 500000,
      });
    });

    it('uses the methods an operator configured for the merchant', async () => {
      const configured = await operator.request('PUT', `/backoffice/v1/merchants/${otherMerchant.credentials.merchantId}/methods`, {
        entries: [
          {
            method: 'pix',
            direction: 'incoming',
            country: 'BR',
            currency: 'BRL',
            fee_rate_basis_points: 0,
            fee_fixed_minor: '0',
            min_amount_minor: '100',
            max_amount_minor: '100000',
            expiry_minutes: 15,
          },
        ],
      });
      expect(configured.status).toBe(200);
      const methods = await otherMerchant.get('/v2/merchant/methods');
      // The withdrawal assets (direction "withdrawal") are listed for every merchant; the payment methods are the configured ones.
      expect(methods.body.data.filter((entry: { direction: string }) => entry.direction !== 'withdrawal')).toEqual([
        { method: 'pix', direction: 'incoming', country: 'BR', currency: 'BRL', fee: { percent: 0, fixed: 0 }, min_amount: 1, max_amount: 1000 },
      ]);
      const rub = await otherMerchant.post('/v2/payments/incoming', incomingPayment(newOrderId()));
      expect([rub.status, rub.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
      const brl = await otherMerchant.post('/v2/payments/incoming', incomingPayment(newOrderId(), { currency: 'BRL', country: 'BR', amount: 10 }));
      expect(brl.body).toMatchObject({ status: 'PENDING', fee: 0, method: 'pix' });
    });
  });
});
