import { CallbacksTestService, externalPaymentEvent, newOrderId } from '@mp/callbacks-testing';
import { CallbackReceiver, eventually } from '@mp/shared-testing';

/**
 * Three replicas on one database, all polling often: rows are claimed with FOR UPDATE SKIP
 * LOCKED and a lease, so without a crash each callback is sent exactly once, whichever replica
 * sends it, and retries are shared the same way.
 */
describe('several dispatcher replicas', () => {
  let service: CallbacksTestService;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    // Half the first attempts answer 503 on one origin: the circuit breaker (shared by the
    // replicas, tested in fair-claiming.int.spec.ts) must not open here, it would pause the test.
    const settings = { pollIntervalMs: 20, circuitFailureThreshold: 1_000 };
    service = await CallbacksTestService.start({ settings });
    await service.startReplica(settings);
    await service.startReplica(settings);
    // About half the callbacks fail once, so retries go through the claim too (they fall due on
    // the first replica's clock, the one the test moves).
    const seen = new Set<string>();
    receiver = await CallbackReceiver.start({
      answer: (_n, callback) => {
        const id = String(callback.headers['webhook-id']);
        const first = !seen.has(id);
        seen.add(id);
        return first && id.charCodeAt(id.length - 1) % 2 === 0 ? { status: 503, delayMs: 50 } : { status: 200, delayMs: 50 };
      },
    });
  });

  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  it('never sends one attempt twice', async () => {
    const merchants = [service.gateway.addMerchant(), service.gateway.addMerchant(), service.gateway.addMerchant()];
    const events = Array.from({ length: 40 }, (_, index) =>
      externalPaymentEvent('PaymentOrderSucceeded', {
        merchantId: (merchants[index % 3] as { merchantId: string }).merchantId,
        orderId: newOrderId(`replica-${index}`),
        callbackUrl: receiver.url(),
      }),
    );
    await service.publish(events);
    const ids = events.map((event) => `msg_${event.id.replace(/-/g, '')}`);
    const retried = ids.filter((id) => id.charCodeAt(id.length - 1) % 2 === 0);
    await eventually(
      () => receiver.received.length,
      (count) => count >= 40,
      'first attempts',
      30_000,
    );
    await service.advanceClock(7);
    const rows = await eventually(
      () => service.query<{ delivery_id: string; attempt_count: number; status: string }>(`SELECT delivery_id, attempt_count, status FROM callback_deliveries`),
      (list) => list.length === 40 && list.every((row) => row.status === 'succeeded'),
      'every delivery succeeded',
      30_000,
    );
    // A fixed window, not a condition: a second replica's duplicate request would arrive within it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const requestsPerId = new Map<string, number>();
    for (const callback of receiver.received)
      requestsPerId.set(String(callback.headers['webhook-id']), (requestsPerId.get(String(callback.headers['webhook-id'])) ?? 0) + 1);
    for (const id of ids) expect([id, requestsPerId.get(id)]).toEqual([id, retried.includes(id) ? 2 : 1]);
    expect(receiver.received).toHaveLength(40 + retried.length);
    const [{ replicas }] = await service.query<{ replicas: number }>(`SELECT count(DISTINCT instance_id)::int AS replicas FROM callback_attempts`);
    expect(replicas).toBeGreaterThan(1);
    expect(rows.map((row) => row.attempt_count).sort()).toEqual(ids.map((id) => (retried.includes(id) ? 2 : 1)).sort());
  });
});
