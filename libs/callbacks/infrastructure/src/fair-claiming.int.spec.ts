import { CallbacksTestService, externalPaymentEvent, mappedLookup, newOrderId, receiverPool } from '@mp/callbacks-testing';
import { eventually } from '@mp/shared-testing';

/** The origin every delivery of the dead-endpoint scenario goes to: a name that does not resolve. */
const DEAD_HOST = 'dead-endpoint.test';

/**
 * Fair claiming on real PostgreSQL and HTTP: a merchant's broken endpoint (thousands of
 * deliveries failing with DNS errors) does not hold back its callbacks to a healthy one, and a
 * circuit breaker per destination origin stops hammering the broken one until a probe succeeds.
 */
describe('fair claiming and the circuit breaker per origin', () => {
  let recovering = false;
  let service: CallbacksTestService;
  const receivers = receiverPool();
  const receiver = receivers.start;

  beforeAll(async () => {
    service = await CallbacksTestService.start({
      lookup: mappedLookup({ [DEAD_HOST]: null, 'recovering-endpoint.test': () => (recovering ? '127.0.0.1' : null) }),
      settings: { circuitFailureThreshold: 3, circuitCooldownMs: 1_500 },
    });
  });

  afterAll(async () => {
    await service?.stop();
    await receivers.stopAll();
  });

  /**
   * 5,000 deliveries of one merchant that already failed once against a host that does not
   * resolve, all due and older than anything new; then one fresh callback of the same merchant
   * to a live receiver. Returns how long after publishing it arrived.
   */
  async function freshCallbackBehindDeadHostRetries(dispatcher: CallbacksTestService): Promise<number> {
    const merchant = dispatcher.gateway.addMerchant();
    const live = await receiver();
    // Warm-up: the consumer has joined its group and the merchant's secrets path works.
    await dispatcher.publish([
      externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId: newOrderId('warm-up'), callbackUrl: live.url() }),
    ]);
    await eventually(
      () => live.received.length,
      (count) => count === 1,
      'the warm-up callback',
      30_000,
    );
    await dispatcher.query(
      `INSERT INTO callback_deliveries (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type,
                                        state_version, target_url, body, status, attempt_count, next_attempt_at, created_at)
       SELECT 'msg_dead' || n, gen_random_uuid(), 'PaymentOrderSucceeded', 'payments.order.events', $1, 'payment_order', 'dead-' || n, 'payment.succeeded',
              2, $2, '{}', 'pending', 1, now() - interval '10 minutes' + n * interval '1 millisecond', now() - interval '1 hour'
         FROM generate_series(1, 5000) AS n`,
      [merchant.merchantId, `http://${DEAD_HOST}:8080/callbacks`],
    );
    // Under load: the dispatcher is already working through the dead host's retries.
    await eventually(
      () =>
        dispatcher.query<{ failed: number }>(
          `SELECT count(*)::int AS failed FROM callback_attempts WHERE delivery_id LIKE 'msg_dead%' AND outcome = 'network_error'`,
        ),
      ([row]) => (row?.failed ?? 0) >= 3,
      'attempts to the dead host',
      20_000,
    );
    const publishedAt = Date.now();
    await dispatcher.publish([
      externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId: newOrderId('fresh'), callbackUrl: live.url() }),
    ]);
    const [, fresh] = await eventually(
      () => live.received,
      (received) => received.length === 2,
      'the fresh callback',
      20_000,
    );
    return (fresh?.receivedAtMs ?? Number.POSITIVE_INFINITY) - publishedAt;
  }

  const deadHostAttempts = async (dispatcher: CallbacksTestService) =>
    (await dispatcher.query<{ attempts: number }>(`SELECT count(*)::int AS attempts FROM callback_attempts WHERE delivery_id LIKE 'msg_dead%'`))[0]?.attempts ??
    0;

  it('sends a first attempt to a live endpoint within 2 s while 5,000 callbacks of the same merchant to a dead host are due for retry', async () => {
    expect(await freshCallbackBehindDeadHostRetries(service)).toBeLessThanOrEqual(2_000);
    // The breaker opened after 3 consecutive failures: the dead host is no longer hammered.
    const [circuit] = await service.query<{ consecutive_failures: number; open: boolean }>(
      `SELECT consecutive_failures, open_until > now() AS open FROM callback_origin_circuits WHERE origin = $1`,
      [`http://${DEAD_HOST}:8080`],
    );
    expect(circuit).toEqual({ consecutive_failures: expect.any(Number), open: true });
    expect(circuit?.consecutive_failures).toBeGreaterThanOrEqual(3);
    expect(await deadHostAttempts(service)).toBeLessThan(20);
  });

  it('is fair without the breaker too: the dead host keeps its 4 slots busy, the fresh callback still goes first', async () => {
    const unbroken = await CallbacksTestService.start({ lookup: mappedLookup({ [DEAD_HOST]: null }), settings: { circuitFailureThreshold: 1_000_000 } });
    try {
      expect(await freshCallbackBehindDeadHostRetries(unbroken)).toBeLessThanOrEqual(2_000);
      // More than one round of its 4 slots, and never paused by the breaker.
      expect(await deadHostAttempts(unbroken)).toBeGreaterThan(4);
      const [circuit] = await unbroken.query<{ open_until: Date | null }>(`SELECT open_until FROM callback_origin_circuits WHERE origin = $1`, [
        `http://${DEAD_HOST}:8080`,
      ]);
      expect(circuit).toEqual({ open_until: null });
    } finally {
      await unbroken.stop();
    }
  });

  it('opens after consecutive failures, lets one probe through after the cool-down, and closes when it succeeds', async () => {
    const merchant = service.gateway.addMerchant();
    const target = await receiver(() => ({ status: 200, delayMs: 400 }));
    const url = `http://recovering-endpoint.test:${target.port}/callbacks`;
    await service.publish(
      Array.from({ length: 10 }, (_, index) =>
        externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId: newOrderId(`recover-${index}`), callbackUrl: url }),
      ),
    );
    const origin = `http://recovering-endpoint.test:${target.port}`;
    await eventually(
      () => service.query<{ open: boolean }>(`SELECT open_until > now() AS open FROM callback_origin_circuits WHERE origin = $1`, [origin]),
      ([row]) => row?.open === true,
      'the circuit open',
      20_000,
    );
    // A fixed window, not a condition: attempts the open circuit must hold back would be made within it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const attemptsWhileOpen = await service.query<{ delivery_id: string }>(
      `SELECT a.delivery_id FROM callback_attempts a JOIN callback_deliveries d USING (delivery_id) WHERE d.merchant_id = $1`,
      [merchant.merchantId],
    );
    // Three failures open it; at most the other attempts already in flight (per-origin limit 4) follow.
    expect(attemptsWhileOpen.length).toBeGreaterThanOrEqual(3);
    expect(attemptsWhileOpen.length).toBeLessThanOrEqual(3 + 3);

    recovering = true;
    await eventually(
      () => target.received.length,
      (count) => count >= 1,
      'the half-open probe',
      10_000,
    );
    // The probe went alone: the next callback was sent only after its 2xx (answered 400 ms later).
    await eventually(
      () => target.received.length,
      (count) => count >= 2,
      'the callbacks after the probe',
      10_000,
    );
    expect((target.received[1]?.receivedAtMs ?? 0) - (target.received[0]?.receivedAtMs ?? 0)).toBeGreaterThanOrEqual(350);
    await service.advanceClock(10);
    await eventually(
      () => new Set(target.received.map((callback) => callback.headers['webhook-id'])).size,
      (count) => count === 10,
      'every callback',
      20_000,
    );
    const [closed] = await service.query<{ consecutive_failures: number; open_until: Date | null }>(
      `SELECT consecutive_failures, open_until FROM callback_origin_circuits WHERE origin = $1`,
      [origin],
    );
    expect(closed).toEqual({ consecutive_failures: 0, open_until: null });
  });
});
