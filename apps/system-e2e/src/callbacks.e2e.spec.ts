/**
 * Goal: callbacks end to end. The gateway, payments, ledger and the callback dispatcher run as
 * real processes; receivers are HTTP servers on 127.0.0.1 (allowed by the dispatcher's
 * operator allow-list in the test system) verifying with the `standardwebhooks` package and
 * the webhook secret the operator API handed out.
 *
 * "outcomes through the gateway" runs on the external events payments publishes
 * (libs/contracts/payments/src/external-events.ts on payments.order.events).
 */
import { randomUUID } from 'node:crypto';
import { merchantWebhookProfilePath, type MerchantWebhookProfile } from '@mp/contracts-callbacks';
import { PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION, PAYMENTS_TOPICS, paymentOrderKey } from '@mp/contracts-payments';
import { BackofficeClient, CallbackReceiver, createOperator, registerAgent, SignedClient, SystemUnderTest, type RegisteredAgent } from '@mp/shared-testing';
import { Kafka, logLevel } from 'kafkajs';
import { eventually } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('callbacks', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  const receivers: CallbackReceiver[] = [];

  const createMerchant = async (name: string, defaultCallbackUrl?: string) => {
    const created = await operator.request('POST', '/backoffice/v1/merchants', {
      name,
      ...(defaultCallbackUrl ? { default_callback_url: defaultCallbackUrl } : {}),
    });
    expect(created.status).toBe(201);
    return {
      client: new SignedClient(system.gatewayUrl, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret }),
      webhookSecret: created.body.webhook_secret as string,
    };
  };
  const receiver = async (secrets: string[]) => {
    const started = await CallbackReceiver.start({ secrets });
    receivers.push(started);
    return started;
  };

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: {
        gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true' },
        payments: { TEST_CLOCK_ENABLED: 'true', PAYMENTS_EXPIRY_SWEEP_INTERVAL_MS: '3600000' },
        // Retries a second apart, and an endpoint disabled after three failed attempts in a row, whenever they happen.
        callbacks: {
          CALLBACK_RETRY_SCHEDULE: '0s,1s,1s,1s,1s,1s',
          CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES: '3',
          CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES: '0',
        },
      },
    });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  });

  afterAll(async () => {
    await system?.stop();
    await Promise.all(receivers.map((started) => started.stop()));
  });

  /** Publishes an external payment-order event as payments will (see the file comment). */
  async function publishExternalEvent(merchantId: string, orderId: string, callbackUrl: string): Promise<string> {
    const kafka = new Kafka({ clientId: 'callbacks-e2e', brokers: String(process.env['KAFKA_BROKERS']).split(','), logLevel: logLevel.NOTHING });
    const producer = kafka.producer();
    await producer.connect();
    const now = new Date().toISOString();
    const id = randomUUID();
    const order = {
      order_id: orderId,
      direction: 'incoming',
      status: 'SUCCEEDED',
      sub_status: null,
      amount: '1500.50',
      fee: '37.51',
      currency: 'RUB',
      country: 'RU',
      method: 'bank_card',
      callback_url: callbackUrl,
      failure_reason: null,
      expires_at: now,
      created_at: now,
      updated_at: now,
    };
    const envelope = {
      id,
      type: 'PaymentOrderSucceeded',
      schemaVersion: PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION,
      source: 'payments',
      subject: `merchant:${merchantId}/order:${orderId}`,
      time: now,
      correlationId: `req_${id.slice(0, 8)}`,
      causationId: null,
      data: {
        merchantId,
        orderId,
        direction: 'incoming',
        status: 'SUCCEEDED',
        amountMinor: '150050',
        feeMinor: '3751',
        currency: 'RUB',
        agentId: null,
        version: 4,
        occurredAt: now,
        order,
      },
    };
    await producer.send({
      topic: `${system.runId}.${PAYMENTS_TOPICS.orderEvents}`,
      messages: [{ key: paymentOrderKey(merchantId, orderId), value: JSON.stringify(envelope) }],
    });
    await producer.disconnect();
    return id;
  }

  it('serves webhook secrets only on the internal port to the dispatcher’s service token, and signs with both secrets during a rotation overlap', async () => {
    const { client, webhookSecret: oldSecret } = await createMerchant('Rotating shop');
    const merchantId = client.credentials.merchantId;
    const internal = (headers: Record<string, string> = {}) =>
      fetch(`http://127.0.0.1:${system.gatewayInternalPort}${merchantWebhookProfilePath(merchantId)}`, { headers });
    const dispatcher = await system.internalHeaders('gateway', { as: 'callbacks' });
    const noToken = await internal();
    expect([noToken.status, ((await noToken.json()) as { code: string }).code]).toEqual([401, 'UNAUTHENTICATED']);
    expect((await internal({ authorization: `Bearer ${'x'.repeat(48)}` })).status).toBe(401);
    // Another service's valid token: not on the gateway's allow-list for this route.
    const payments = await internal(await system.internalHeaders('gateway', { as: 'payments' }));
    expect([payments.status, ((await payments.json()) as { code: string }).code]).toEqual([403, 'FORBIDDEN']);
    expect((await fetch(`${system.gatewayUrl}${merchantWebhookProfilePath(merchantId)}`, { headers: dispatcher })).status).toBe(404);

    const rotated = await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/webhook-secret/rotate`, { overlap_hours: 2 });
    expect(rotated.status).toBe(201);
    const newSecret = rotated.body.webhook_secret as string;
    expect(newSecret).toMatch(/^whsec_/);
    expect(Date.parse(rotated.body.previous_secret_valid_until) - Date.now()).toBeGreaterThan(7_100_000);
    const profile = (await (await internal(dispatcher)).json()) as MerchantWebhookProfile;
    expect(profile.webhook_secrets.map((entry) => [entry.role, entry.secret])).toEqual([
      ['current', newSecret],
      ['previous', oldSecret],
    ]);
    const invalid = await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/webhook-secret/rotate`, { overlap_hours: 500 });
    expect([invalid.status, invalid.body.error.details[0].field]).toEqual([400, 'overlap_hours']);

    const target = await receiver([oldSecret, newSecret]);
    const orderId = newOrderId('rotated');
    await publishExternalEvent(merchantId, orderId, target.url());
    await eventually(
      () => target.received.length,
      (count) => count === 1,
      'the callback',
    );
    expect(target.received[0]?.verifiedWith).toEqual([oldSecret, newSecret]);
  });

  it('shows operators the delivery log, redelivers, and shows and re-enables an endpoint a 410 disabled', async () => {
    const target = await receiver([]);
    const { client, webhookSecret } = await createMerchant('Gone shop', target.url());
    target.secrets.push(webhookSecret);
    const merchantId = client.credentials.merchantId;
    target.status = 410;
    const orderId = newOrderId('gone');
    const eventId = await publishExternalEvent(merchantId, orderId, target.url());
    await eventually(
      () => target.received.length,
      (count) => count === 1,
      'the first attempt',
    );

    const disabledProfile = await eventually(
      () => client.get('/v2/merchant'),
      (response) => response.body.default_callback_url_disabled === true,
      'the profile showing the disabled URL',
    );
    expect(disabledProfile.body).toMatchObject({ merchant_id: merchantId, default_callback_url: target.url(), default_callback_url_disabled: true });
    const merchantView = await operator.request('GET', `/backoffice/v1/merchants/${merchantId}`);
    expect(merchantView.body).toMatchObject({
      default_callback_url: target.url(),
      default_callback_url_disabled: true,
      disabled_callback_endpoints: [{ url: target.url(), parked_deliveries: 1 }],
    });
    const everyDisabled = await operator.request('GET', '/backoffice/v1/callbacks/endpoints/disabled');
    expect(everyDisabled.body.data.map((endpoint: { merchant_id: string }) => endpoint.merchant_id)).toContain(merchantId);

    const log = await operator.request('GET', `/backoffice/v1/callbacks/deliveries?merchant_id=${merchantId}&order_id=${orderId}`);
    expect(log.status).toBe(200);
    expect(log.body.data).toEqual([
      expect.objectContaining({
        callback_type: 'payment.succeeded',
        status: 'endpoint_disabled',
        source_event: expect.objectContaining({ id: eventId }),
        attempts: [expect.objectContaining({ attempt_number: 1, outcome: 'gone', response_status: 410, latency_ms: expect.any(Number) })],
      }),
    ]);
    expect((await operator.request('GET', `/backoffice/v1/callbacks/deliveries?event_id=${eventId}`)).body.data).toHaveLength(1);
    const missing = await operator.request('GET', '/backoffice/v1/callbacks/deliveries');
    expect([missing.status, missing.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect((await client.get('/backoffice/v1/callbacks/endpoints/disabled')).status).toBe(401);

    target.status = 200;
    const enabled = await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/callback-endpoints/enable`, { url: target.url() });
    expect([enabled.status, enabled.body.resumed_deliveries]).toEqual([200, 1]);
    await eventually(
      () => target.received.length,
      (count) => count === 2,
      'the resumed callback',
    );
    expect((await client.get('/v2/merchant')).body.default_callback_url_disabled).toBe(false);

    const deliveryId = log.body.data[0].delivery_id as string;
    const redelivered = await operator.request('POST', `/backoffice/v1/callbacks/deliveries/${deliveryId}/redeliver`, {});
    expect(redelivered.status).toBe(202);
    await eventually(
      () => target.received.length,
      (count) => count === 3,
      'the redelivery',
    );
    expect(new Set(target.received.map((callback) => callback.headers['webhook-id']))).toEqual(new Set([deliveryId]));
    expect(target.received.every((callback) => callback.verifiedWith.length === 1)).toBe(true);
  });

  it("gives merchants their own delivery log, disabled endpoints, re-enabling, redelivery and a signed test callback; another merchant's are 404", async () => {
    const target = await receiver([]);
    const { client, webhookSecret } = await createMerchant('Self-service shop', target.url());
    target.secrets.push(webhookSecret);
    target.status = 500;
    const orderId = newOrderId('self');
    const eventId = await publishExternalEvent(client.credentials.merchantId, orderId, target.url());

    const endpoints = await eventually(
      () => client.get('/v2/webhooks/endpoints'),
      (response) => response.body.data?.length === 1,
      'the endpoint disabled after three failed attempts',
    );
    expect(endpoints.body.data).toEqual([
      {
        url: target.url(),
        disabled_at: expect.any(String),
        cause: 'consecutive_failures',
        reason: expect.stringMatching(/^3 consecutive failed attempts since /),
        parked_deliveries: 1,
      },
    ]);
    expect(target.received).toHaveLength(3);
    const log = await client.get(`/v2/webhooks/deliveries?order_id=${orderId}`);
    // Charged to the merchant's rate limit like every signed /v2 route.
    expect([log.status, log.headers.get('ratelimit-remaining')]).toEqual([200, expect.stringMatching(/^\d+$/)]);
    expect(log.body).toEqual({
      data: [
        {
          delivery_id: expect.stringMatching(/^msg_/),
          event_id: eventId,
          event_type: 'payment.succeeded',
          order_id: orderId,
          url: target.url(),
          status: 'endpoint_disabled',
          attempt_count: 3,
          last_attempt_at: expect.any(String),
          last_response_code: 500,
          next_attempt_at: null,
          created_at: expect.any(String),
        },
      ],
      has_more: false,
      next_cursor: null,
    });
    const deliveryId = log.body.data[0].delivery_id as string;
    const detail = await client.get(`/v2/webhooks/deliveries/${deliveryId}`);
    expect(
      detail.body.attempts.map((attempt: { attempt_number: number; response_code: number; outcome: string; duration_ms: number }) => [
        attempt.attempt_number,
        attempt.response_code,
        attempt.outcome,
        typeof attempt.duration_ms,
      ]),
    ).toEqual([
      [1, 500, 'http_error', 'number'],
      [2, 500, 'http_error', 'number'],
      [3, 500, 'http_error', 'number'],
    ]);
    expect(JSON.stringify(detail.body)).not.toMatch(/whsec_|v1,|"body"|signature/);
    const whileDisabled = await client.post(`/v2/webhooks/deliveries/${deliveryId}/redeliver`, {});
    expect([whileDisabled.status, whileDisabled.body.error.code]).toEqual([409, 'WEBHOOK_ENDPOINT_DISABLED']);

    const { client: other } = await createMerchant('Other shop');
    for (const response of [
      await other.get(`/v2/webhooks/deliveries/${deliveryId}`),
      await other.post(`/v2/webhooks/deliveries/${deliveryId}/redeliver`, {}),
      await other.post('/v2/webhooks/endpoints/enable', { url: target.url() }),
    ]) {
      expect([response.status, response.body.error.code]).toEqual([404, 'NOT_FOUND']);
    }
    expect([(await other.get('/v2/webhooks/deliveries')).body.data, (await other.get('/v2/webhooks/endpoints')).body.data]).toEqual([[], []]);

    target.status = 200;
    const enabled = await client.post('/v2/webhooks/endpoints/enable', { url: target.url() });
    expect([enabled.status, enabled.body]).toEqual([200, { url: target.url(), resumed_deliveries: 1 }]);
    await eventually(
      () => target.received.length,
      (count) => count === 4,
      'the resumed callback',
    );
    const redelivered = await client.post(`/v2/webhooks/deliveries/${deliveryId}/redeliver`, {});
    expect([redelivered.status, redelivered.body.delivery_id]).toEqual([202, deliveryId]);
    await eventually(
      () => target.received.length,
      (count) => count === 5,
      'the redelivery',
    );
    const [resumed, again] = target.received.slice(3);
    expect([resumed?.verifiedWith, again?.verifiedWith, again?.headers['webhook-id'], again?.body]).toEqual([
      [webhookSecret],
      [webhookSecret],
      deliveryId,
      resumed?.body,
    ]);
    await eventually(
      () => client.get(`/v2/webhooks/deliveries/${deliveryId}`),
      (response) => response.body.status === 'succeeded' && response.body.attempt_count === 5,
      'the redelivery recorded',
    );
    expect((await client.get('/v2/webhooks/endpoints')).body.data).toEqual([]);

    const tested = await client.post('/v2/webhooks/test', {});
    expect([tested.status, tested.body.event_type, tested.body.url, tested.body.order_id]).toEqual([202, 'webhook.test', target.url(), null]);
    await eventually(
      () => target.received.length,
      (count) => count === 6,
      'the test callback',
    );
    expect(target.received[5]?.verifiedWith).toEqual([webhookSecret]);
    expect(JSON.parse(target.received[5]?.body ?? '{}')).toEqual({
      id: tested.body.delivery_id,
      type: 'webhook.test',
      created_at: expect.any(String),
      data: { test: true, message: expect.any(String), version: 1 },
    });
    const newest = await client.get('/v2/webhooks/deliveries?limit=1');
    expect([newest.body.data.map((delivery: { delivery_id: string }) => delivery.delivery_id), newest.body.has_more]).toEqual([
      [tested.body.delivery_id],
      true,
    ]);
    const older = await client.get(`/v2/webhooks/deliveries?limit=1&cursor=${newest.body.next_cursor}`);
    expect([older.body.data.map((delivery: { delivery_id: string }) => delivery.delivery_id), older.body.has_more, older.body.next_cursor]).toEqual([
      [deliveryId],
      false,
      null,
    ]);
    expect((await client.get('/v2/webhooks/deliveries?event_type=webhook.test&status=succeeded')).body.data).toHaveLength(1);

    const refusals = [
      await client.get('/v2/webhooks/deliveries?status=lost&limit=500'),
      await client.get('/v2/webhooks/deliveries?cursor=bm90LWEtY3Vyc29y'),
      await client.get('/v2/webhooks/deliveries?colour=red'),
      await client.post('/v2/webhooks/test', { url: 'ftp://shop.example/callbacks' }),
      await other.post('/v2/webhooks/test', { event_type: 'payment.succeeded' }),
    ];
    expect(refusals.map((response) => [response.status, response.body.error.code])).toEqual(Array(5).fill([400, 'VALIDATION_ERROR']));
    expect(refusals[0]?.body.error.details.map((detail: { field: string }) => detail.field).sort()).toEqual(['limit', 'status']);
    expect(refusals[3]?.body.error.details[0].field).toBe('url');
    const unknown = await client.get(`/v2/webhooks/deliveries/msg_${'0'.repeat(32)}`);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  describe('outcomes through the gateway', () => {
    it('sends exactly the documented callback type with the state object for each pay-in and payout outcome', async () => {
      const { client: merchant, webhookSecret } = await createMerchant('Outcome shop');
      const target = await receiver([webhookSecret]);
      const merchantId = merchant.credentials.merchantId;
      const agentAction = (action: string, orderId: string, body: object = {}) =>
        agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${orderId}/${action}`, body);
      const payIn = async (label: string, amount = 1500.5) => {
        const orderId = newOrderId(label);
        const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount, callback_url: target.url() }));
        expect(created.status).toBe(201);
        // The payer asks for the payment details (a form post), which assigns the agent.
        expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
        return orderId;
      };
      const succeeded = await payIn('in-ok', 20_000);
      expect((await agentAction('confirm', succeeded)).status).toBe(200);
      const failed = await payIn('in-failed');
      expect((await agentAction('decline', failed, { reason: 'no money arrived' })).status).toBe(200);
      const cancelled = await payIn('in-cancelled');
      expect((await merchant.post(`/v2/payments/${cancelled}/cancel`, {})).status).toBe(200);
      const expired = newOrderId('in-expired');
      expect((await merchant.post('/v2/payments/incoming', incomingPayment(expired, { callback_url: target.url() }))).status).toBe(201);
      const clock = await fetch(`${system.paymentsUrl}/internal/test/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(await system.internalHeaders('payments', { as: 'test-harness' })) },
        body: JSON.stringify({ advance_seconds: 31 * 60 }),
      });
      expect(clock.status).toBe(200);

      await eventually(
        async () =>
          (await merchant.get('/v2/merchant/balances')).body.settlement.find((entry: { currency: string }) => entry.currency === 'RUB')?.available ?? 0,
        (available) => available > 2_200,
        'the funded balance',
      );
      const payout = async (label: string) => {
        const orderId = newOrderId(label);
        const created = await merchant.post('/v2/payments/outgoing', {
          ...incomingPayment(orderId, { amount: 1000, callback_url: target.url() }),
          method: 'bank_card',
          account_number: '40817810099910004312',
        });
        expect(created.status).toBe(201);
        expect((await agentAction('take', orderId)).status).toBe(200);
        return orderId;
      };
      const paidOut = await payout('out-ok');
      const receipt = await agent.client.request(
        'POST',
        `/backoffice/v1/agent/orders/${merchantId}/${paidOut}/receipts`,
        Buffer.from('%PDF-1.7 transfer confirmation'),
        { 'x-file-name': 'transfer.pdf' },
      );
      expect((await agentAction('complete', paidOut, { receipt_id: receipt.body.receipt_id })).status).toBe(200);
      const payoutFailed = await payout('out-failed');
      expect((await agentAction('decline', payoutFailed, { reason: 'account closed' })).status).toBe(200);

      const expected: Array<[string, string]> = [
        [succeeded, 'payment.succeeded'],
        [failed, 'payment.failed'],
        [cancelled, 'payment.cancelled'],
        [expired, 'payment.expired'],
        [paidOut, 'payment.succeeded'],
        [payoutFailed, 'payment.failed'],
      ];
      await eventually(
        () => target.received.length,
        (count) => count >= expected.length,
        'six callbacks',
        60_000,
      );
      // A fixed window, not a condition: a seventh (duplicate) callback would arrive within it.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const bodies = target.bodies();
      expect(bodies.map((body) => [body.data.order_id, body.type]).sort()).toEqual([...expected].sort());
      expect(target.received.every((callback) => callback.verifiedWith.length === 1)).toBe(true);
      for (const [orderId] of expected) {
        const body = bodies.find((candidate) => candidate.data.order_id === orderId);
        const state = (await merchant.get(`/v2/payments/status/${orderId}`)).body;
        expect(body?.id).toBe(target.received[bodies.indexOf(body as never)]?.headers['webhook-id']);
        expect(body?.data.version).toEqual(expect.any(Number));
        expect(body?.data).toMatchObject({
          order_id: orderId,
          status: state.status,
          direction: state.direction,
          currency: state.currency,
          callback_url: target.url(),
        });
        // The same object the status endpoint returns (the payer link aside), plus the version.
        const { version: _version, ...data } = body?.data ?? {};
        const { redirect_url: _payerLink, ...shown } = state;
        expect(data).toEqual(shown);
      }
    });
  });
});
