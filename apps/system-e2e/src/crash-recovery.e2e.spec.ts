/**
 * Goal: a crash of the payments service after it committed a command and before its reply
 * reached the gateway loses nothing and duplicates nothing. Method: the service's fault hook
 * SIGKILLs it right after the commit; the merchant gets 503 with Retry-After; after a restart
 * a retry with the same order_id returns the order, the event store holds it once, and its
 * event reaches the order-progress topic as one message (the relay deletes what it published, so
 * the topic, not the outbox, is where that is seen).
 */
import { PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { eventually, SignedClient, SystemUnderTest } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';
import { envelopesOnTopic } from './topic-envelopes';

describe('payments crash between commit and reply', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: { gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '4000' }, payments: { FAULT_CRASH_AFTER_COMMIT_OF: 'CreateIncomingPayment' } },
    });
    merchant = await system.createClient('Crash shop');
  });
  afterAll(async () => system?.stop());

  it('answers 503 while the service is down and the real order, once, after it restarts', async () => {
    const orderId = newOrderId('crash');
    const body = JSON.stringify(incomingPayment(orderId));

    const duringCrash = await merchant.post('/v2/payments/incoming', body);
    expect(duringCrash.status).toBe(503);
    expect(duringCrash.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(Number(duringCrash.headers.get('retry-after'))).toBeGreaterThan(0);
    await system.waitForExit('payments');
    expect(system.isRunning('payments')).toBe(false);
    expect(system.outputOf('payments').join('\n')).toContain('fault injection: crashing after committing CreateIncomingPayment');

    await system.startService('payments', { FAULT_CRASH_AFTER_COMMIT_OF: '' });
    const retry = await merchant.post('/v2/payments/incoming', body);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ order_id: orderId, status: 'PENDING', amount: 1500.5 });

    const status = await merchant.get(`/v2/payments/status/${orderId}`);
    expect(status.status).toBe(200);
    expect(status.body.created_at).toBe(retry.body.created_at);

    const streamId = `payment-order:${merchant.credentials.merchantId}:${orderId}`;
    const events = await system.query<{ event_type: string }>('payments', `SELECT event_type FROM event_store WHERE stream_id = $1`, [streamId]);
    expect(events).toEqual([{ event_type: 'IncomingPaymentCreated' }]);
    const subject = `merchant:${merchant.credentials.merchantId}/order:${orderId}`;
    const published = await eventually(async () => {
      const envelopes = (await envelopesOnTopic(system.runId, PAYMENTS_TOPICS.orderProgress)).filter((envelope) => envelope.subject === subject);
      return envelopes.length > 0 ? envelopes : undefined;
    });
    // At least once: a relay may repeat a message, never write a second one.
    expect([...new Set(published.map((envelope) => envelope.id))]).toHaveLength(1);
    expect(published[0].type).toBe('PaymentOrderCreated');
  });
});
