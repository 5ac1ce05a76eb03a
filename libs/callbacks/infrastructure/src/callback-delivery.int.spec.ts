import { Webhook } from 'standardwebhooks';
import type { CallbackDeliveryView } from '@mp/contracts-callbacks';
import { CallbacksTestService, externalPaymentEvent, newOrderId, newTestWebhookSecret, receiverPool } from '@mp/callbacks-testing';
import { eventually } from '@mp/shared-testing';

/**
 * The dispatcher on real Kafka and PostgreSQL, delivering to real HTTP receivers on 127.0.0.1
 * (allowed explicitly by the operator allow-list), with the clock moved through its test endpoint.
 */
describe('callback delivery', () => {
  let service: CallbacksTestService;
  const receivers = receiverPool();
  const receiver = receivers.start;
  const deliveriesOf = async (merchantId: string, orderId: string): Promise<CallbackDeliveryView[]> =>
    (await service.request('GET', `/internal/deliveries?merchant_id=${merchantId}&order_id=${orderId}`)).body.data;
  /** A fixed window, not a condition: a callback that must not be sent (a duplicate, one too early) would be sent within it. */
  const settle = (ms = 600) => new Promise((resolve) => setTimeout(resolve, ms));

  beforeAll(async () => {
    service = await CallbacksTestService.start();
  });

  afterAll(async () => {
    await service?.stop();
    await receivers.stopAll();
  });

  // First in the file: Standard Webhooks receivers reject timestamps more than 5 minutes from
  // their own clock, and later tests move the dispatcher's clock by hours.
  it('signs so a standardwebhooks receiver accepts every callback, with either secret during a rotation overlap, and refuses tampering and old timestamps', async () => {
    const [current, previous] = [newTestWebhookSecret(), newTestWebhookSecret()];
    const merchant = service.gateway.addMerchant([current, previous]);
    const verdicts: string[] = [];
    const target = await receiver((_n, callback) => {
      try {
        new Webhook(current).verify(callback.body, callback.headers as Record<string, string>);
        new Webhook(previous).verify(callback.body, callback.headers as Record<string, string>);
        verdicts.push('ok');
        return { status: 200 };
      } catch (error) {
        verdicts.push(String(error));
        return { status: 400 };
      }
    });
    const types = ['PaymentOrderSucceeded', 'PaymentOrderFailed', 'PaymentOrderCancelled', 'PaymentOrderExpired'] as const;
    const orderIds = types.map(() => newOrderId('sig'));
    await service.publish(
      types.map((type, index) =>
        externalPaymentEvent(type, { merchantId: merchant.merchantId, orderId: orderIds[index] as string, callbackUrl: target.url(), version: index + 2 }),
      ),
    );
    await eventually(
      () => target.received.length,
      (count) => count >= 4,
      'four callbacks',
      20_000,
    );
    expect(verdicts).toEqual(['ok', 'ok', 'ok', 'ok']);

    const sample = target.received[0];
    if (!sample) throw new Error('no callback');
    const headers = sample.headers as Record<string, string>;
    expect(headers['webhook-signature']?.split(' ')).toHaveLength(2);
    expect(headers['webhook-signature']).toMatch(/^v1,\S+ v1,\S+$/);
    const body = JSON.parse(sample.body);
    expect(body.id).toBe(headers['webhook-id']);
    expect(body.data.version).toEqual(expect.any(Number));

    const tampered = sample.body.replace('1500.50', '9500.50');
    expect(tampered).not.toBe(sample.body);
    expect(() => new Webhook(current).verify(tampered, headers)).toThrow(/signature/i);
    expect(() => new Webhook(newTestWebhookSecret()).verify(sample.body, headers)).toThrow(/signature/i);
    const realNow = Date.now();
    const later = jest.spyOn(Date, 'now').mockReturnValue(realNow + 10 * 60_000);
    try {
      expect(() => new Webhook(current).verify(sample.body, headers)).toThrow(/too old/i);
    } finally {
      later.mockRestore();
    }
  });

  it('turns each outcome into exactly its documented callback type with the state object and version', async () => {
    const merchant = service.gateway.addMerchant();
    const target = await receiver();
    const cases = [
      ['PaymentOrderSucceeded', 'payment.succeeded', 'incoming'],
      ['PaymentOrderFailed', 'payment.failed', 'incoming'],
      ['PaymentOrderCancelled', 'payment.cancelled', 'incoming'],
      ['PaymentOrderExpired', 'payment.expired', 'incoming'],
      ['PaymentOrderSucceeded', 'payment.succeeded', 'outgoing'],
      ['PaymentOrderFailed', 'payment.failed', 'outgoing'],
    ] as const;
    const events = cases.map(([type, , direction], index) =>
      externalPaymentEvent(type, {
        merchantId: merchant.merchantId,
        orderId: newOrderId(`${direction}-${index}`),
        callbackUrl: target.url(),
        version: 4,
        direction,
      }),
    );
    // Non-outcome events cause no callback.
    const created = externalPaymentEvent('PaymentOrderCreated', {
      merchantId: merchant.merchantId,
      orderId: newOrderId('created'),
      callbackUrl: target.url(),
      version: 1,
    });
    await service.publish([created, ...events]);
    await eventually(
      () => target.received.length,
      (count) => count >= cases.length,
      'six callbacks',
      20_000,
    );
    await settle();
    expect(target.received).toHaveLength(cases.length);
    const bodies = target.received.map((callback) => JSON.parse(callback.body));
    cases.forEach(([, callbackType], index) => {
      const event = events[index];
      if (!event) throw new Error('missing event');
      const position = bodies.findIndex((candidate) => candidate.data.order_id === event.data.orderId);
      const body = bodies[position];
      // The order as the status endpoint shows it: money as JSON numbers with the snapshot's
      // digits, the masked recipient as account_number.
      const { account_number_masked: accountNumber, amount, fee, ...rest } = event.data.order;
      const shown = { ...rest, amount: Number(amount), fee: Number(fee), ...(accountNumber === undefined ? {} : { account_number: accountNumber }) };
      expect(body).toEqual({ id: `msg_${event.id.replace(/-/g, '')}`, type: callbackType, created_at: event.data.occurredAt, data: { ...shown, version: 4 } });
      expect(target.received[position]?.body).toContain(`"amount":${amount},"fee":${fee},`);
    });
  });

  it('records one delivery per event: a redelivered event sends nothing twice', async () => {
    const merchant = service.gateway.addMerchant();
    const target = await receiver();
    const orderId = newOrderId('dup');
    const event = externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId, callbackUrl: target.url() });
    await service.publish([event, event]);
    // The same fact under another envelope id (a republished event) is absorbed by the version key.
    await service.publish([{ ...event, id: crypto.randomUUID() }]);
    await eventually(
      () => target.received.length,
      (count) => count >= 1,
    );
    await settle(1_000);
    expect(target.received).toHaveLength(1);
    const [{ count }] = await service.query<{ count: number }>(`SELECT count(*)::int AS count FROM callback_deliveries WHERE subject_id = $1`, [orderId]);
    expect(count).toBe(1);
  });

  it("keeps a redelivery asked for while an attempt is in flight: the attempt's success does not swallow it", async () => {
    const merchant = service.gateway.addMerchant();
    // The first answer takes 1 s (under the 1.5 s attempt deadline), long enough to ask meanwhile.
    const target = await receiver((n) => (n === 1 ? { status: 200, delayMs: 1_000 } : { status: 200 }));
    const orderId = newOrderId('inflight');
    const event = externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId, callbackUrl: target.url() });
    await service.publish([event]);
    await eventually(
      () => target.received.length,
      (count) => count === 1,
      'the first attempt reaching the receiver',
    );
    const deliveryId = (await service.request('GET', `/internal/deliveries?event_id=${event.id}`)).body.data[0].delivery_id;
    expect((await service.request('POST', `/internal/deliveries/${deliveryId}/redeliver`)).status).toBe(202);
    await eventually(
      () => target.received.length,
      (count) => count === 2,
      'the redelivery after the in-flight attempt',
    );
    const delivered = await eventually(
      () => service.request('GET', `/internal/deliveries/${deliveryId}`),
      (found) => found.body.status === 'succeeded' && found.body.attempts.length === 2,
      'both attempts recorded',
    );
    expect(delivered.body.attempts.map((attempt: { outcome: string }) => attempt.outcome)).toEqual(['succeeded', 'succeeded']);
    expect(target.received[1]?.headers['webhook-id']).toBe(deliveryId);
  });

  it('retries a receiver that times out, with the same webhook-id', async () => {
    const merchant = service.gateway.addMerchant();
    const target = await receiver((n) => (n === 1 ? { status: 200, delayMs: 4_000 } : { status: 200 }));
    const orderId = newOrderId('slow');
    await service.publish([externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId, callbackUrl: target.url() })]);
    await eventually(
      () => deliveriesOf(merchant.merchantId, orderId),
      (list) => list[0]?.attempts[0]?.outcome === 'timeout',
      'a timed-out attempt',
      20_000,
    );
    await service.advanceClock(7);
    const [delivery] = await eventually(
      () => deliveriesOf(merchant.merchantId, orderId),
      (list) => list[0]?.status === 'succeeded',
      'delivery',
      20_000,
    );
    expect(delivery?.attempts.map((attempt) => attempt.outcome)).toEqual(['timeout', 'succeeded']);
    expect(delivery?.attempts[0]?.latency_ms).toBeGreaterThanOrEqual(1_400);
    // Cut at the 1.5 s deadline, not after the receiver's 4 s.
    expect(delivery?.attempts[0]?.latency_ms).toBeLessThan(3_900);
    expect(new Set(target.received.map((callback) => callback.headers['webhook-id'])).size).toBe(1);
  });

  it('does not follow a redirect: 3xx is a failure, retried, and the redirect target is never called', async () => {
    const merchant = service.gateway.addMerchant();
    const inward = await receiver();
    const target = await receiver((n) =>
      n === 1 ? { status: 302, headers: { location: inward.url('/admin') }, body: 'moved' } : { status: 200, body: 'thanks' },
    );
    const orderId = newOrderId('redirect');
    await service.publish([externalPaymentEvent('PaymentOrderFailed', { merchantId: merchant.merchantId, orderId, callbackUrl: target.url() })]);
    await eventually(
      () => deliveriesOf(merchant.merchantId, orderId),
      (list) => list[0]?.attempts[0]?.outcome === 'redirect',
      'a redirected attempt',
      20_000,
    );
    expect(inward.connections).toBe(0);
    await service.advanceClock(7);
    const [delivery] = await eventually(
      () => deliveriesOf(merchant.merchantId, orderId),
      (list) => list[0]?.status === 'succeeded',
      'delivery',
      20_000,
    );
    expect(delivery?.attempts.map((attempt) => [attempt.outcome, attempt.response_status, attempt.response_excerpt])).toEqual([
      ['redirect', 302, 'moved'],
      ['succeeded', 200, 'thanks'],
    ]);
    expect(inward.connections).toBe(0);
  });

  it('disables an endpoint that answers 410, parks its callbacks, shows it to operators and resumes when re-enabled', async () => {
    const merchant = service.gateway.addMerchant();
    let gone = true;
    const target = await receiver(() => (gone ? { status: 410, body: 'gone' } : { status: 200 }));
    const other = await receiver();
    const [first, second, elsewhere] = [newOrderId('gone-1'), newOrderId('gone-2'), newOrderId('other')];
    await service.publish([externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId: first, callbackUrl: target.url() })]);
    await eventually(
      () => deliveriesOf(merchant.merchantId, first),
      (list) => list[0]?.status === 'endpoint_disabled',
      'endpoint disabled',
      20_000,
    );
    const disabled = await service.request('GET', `/internal/endpoints/disabled?merchant_id=${merchant.merchantId}`);
    expect(disabled.body.data).toEqual([
      {
        merchant_id: merchant.merchantId,
        url: target.url(),
        disabled_at: expect.any(String),
        cause: 'gone',
        reason: expect.stringContaining('410'),
        parked_deliveries: 1,
      },
    ]);

    // Another callback to the same URL is parked without an attempt; another URL of the merchant is not affected.
    await service.publish([
      externalPaymentEvent('PaymentOrderCancelled', { merchantId: merchant.merchantId, orderId: second, callbackUrl: target.url() }),
      externalPaymentEvent('PaymentOrderCancelled', { merchantId: merchant.merchantId, orderId: elsewhere, callbackUrl: other.url() }),
    ]);
    await eventually(
      () => other.received.length,
      (count) => count === 1,
      'the other endpoint',
      20_000,
    );
    const [parked] = await eventually(
      () => deliveriesOf(merchant.merchantId, second),
      (list) => list.length === 1,
    );
    expect(parked?.status).toBe('endpoint_disabled');
    expect(parked?.attempts).toEqual([]);
    await service.advanceClock(3_600);
    await settle();
    expect(target.received).toHaveLength(1);

    gone = false;
    const enabled = await service.request('POST', '/internal/endpoints/enable', { merchant_id: merchant.merchantId, url: target.url() });
    expect(enabled).toEqual({ status: 200, body: { merchant_id: merchant.merchantId, url: target.url(), resumed_deliveries: 2 } });
    await eventually(
      () => target.received.length,
      (count) => count === 3,
      'the parked callbacks',
      20_000,
    );
    expect((await service.request('GET', `/internal/endpoints/disabled?merchant_id=${merchant.merchantId}`)).body.data).toEqual([]);
    expect((await service.request('POST', '/internal/endpoints/enable', { merchant_id: merchant.merchantId, url: target.url() })).status).toBe(404);
  });

  it('redelivers on an operator request with the same webhook-id and body', async () => {
    const merchant = service.gateway.addMerchant();
    const target = await receiver();
    const orderId = newOrderId('again');
    const event = externalPaymentEvent('PaymentOrderExpired', { merchantId: merchant.merchantId, orderId, callbackUrl: target.url() });
    await service.publish([event]);
    await eventually(
      () => target.received.length,
      (count) => count === 1,
    );
    const byEvent = await service.request('GET', `/internal/deliveries?event_id=${event.id}`);
    const deliveryId = byEvent.body.data[0].delivery_id;
    await eventually(
      () => service.request('GET', `/internal/deliveries/${deliveryId}`),
      (found) => found.body.status === 'succeeded',
    );
    expect((await service.request('POST', `/internal/deliveries/${deliveryId}/redeliver`)).status).toBe(202);
    await eventually(
      () => target.received.length,
      (count) => count === 2,
    );
    expect(target.received[1]?.headers['webhook-id']).toBe(deliveryId);
    expect(target.received[1]?.body).toBe(target.received[0]?.body);
    expect((await service.request('POST', '/internal/deliveries/msg_unknown/redeliver')).status).toBe(404);
    expect((await service.request('GET', '/internal/deliveries?merchant_id=x')).status).toBe(400);
  });

  it('bounds concurrency per destination origin, so a slow receiver does not hold back another endpoint', async () => {
    const slowMerchant = service.gateway.addMerchant();
    const quickMerchant = service.gateway.addMerchant();
    const slow = await receiver(() => ({ status: 200, delayMs: 1_000 }));
    const quick = await receiver();
    await service.publish(
      Array.from({ length: 24 }, (_, index) =>
        externalPaymentEvent('PaymentOrderSucceeded', { merchantId: slowMerchant.merchantId, orderId: newOrderId(`slow-${index}`), callbackUrl: slow.url() }),
      ),
    );
    await eventually(
      () => slow.received.length,
      (count) => count >= 1,
    );
    await service.publish([
      externalPaymentEvent('PaymentOrderSucceeded', { merchantId: quickMerchant.merchantId, orderId: newOrderId('quick'), callbackUrl: quick.url() }),
    ]);
    await eventually(
      () => quick.received.length,
      (count) => count === 1,
      'the quick merchant',
      5_000,
    );
    // The quick merchant was served while the slow one still had callbacks waiting.
    expect(slow.received.length).toBeLessThan(24);
    await eventually(
      () => slow.received.length,
      (count) => count === 24,
      'every slow callback',
      30_000,
    );
    expect(slow.maxConcurrent).toBe(4);
  });

  it('spaces the attempts of a receiver that fails three times per the schedule, then delivers, always with the same webhook-id', async () => {
    const merchant = service.gateway.addMerchant();
    const target = await receiver((n) => (n <= 3 ? { status: 500, body: 'down' } : { status: 204 }));
    const orderId = newOrderId('flaky');
    await service.publish([externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId, callbackUrl: target.url() })]);
    await eventually(
      () => target.received.length,
      (count) => count === 1,
    );
    // Schedule: 5 s, 5 min, 30 min after the previous attempt, each ±20 %. Just before the
    // earliest jittered time nothing is sent; after the latest, the next attempt is.
    for (const [nominalSeconds, attempts] of [
      [5, 2],
      [300, 3],
      [1_800, 4],
    ] as const) {
      await service.advanceClock(nominalSeconds * 0.8 - 1);
      await settle();
      expect(target.received).toHaveLength(attempts - 1);
      await service.advanceClock(nominalSeconds * 0.4 + 2);
      await eventually(
        () => target.received.length,
        (count) => count === attempts,
        `attempt ${attempts}`,
        10_000,
      );
    }
    const [delivery] = await eventually(
      () => deliveriesOf(merchant.merchantId, orderId),
      (list) => list[0]?.status === 'succeeded',
    );
    expect(delivery?.attempts.map((attempt) => [attempt.outcome, attempt.response_status])).toEqual([
      ['http_error', 500],
      ['http_error', 500],
      ['http_error', 500],
      ['succeeded', 204],
    ]);
    expect(delivery?.attempts[0]?.response_excerpt).toBe('down');
    const started = (delivery?.attempts ?? []).map((attempt) => Date.parse(attempt.started_at));
    const gaps = started.slice(1).map((time, index) => (time - (started[index] as number)) / 1_000);
    [5, 300, 1_800].forEach((nominal, index) => {
      expect(gaps[index]).toBeGreaterThanOrEqual(nominal * 0.8);
      expect(gaps[index]).toBeLessThanOrEqual(nominal * 1.2 + 3);
    });
    expect(new Set(target.received.map((callback) => callback.headers['webhook-id']))).toEqual(new Set([delivery?.delivery_id]));
    const timestamps = target.received.map((callback) => Number(callback.headers['webhook-timestamp']));
    expect(new Set(timestamps).size).toBe(4);
  });

  it('stores an answer body holding NUL and invalid UTF-8 sanitised and bounded, and succeeds on its 2xx status alone (no redelivery)', async () => {
    const merchant = service.gateway.addMerchant();
    const hostile = Buffer.concat([Buffer.from('ok\u0000nul'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('\u0000'.repeat(600))]);
    const target = await receiver(() => ({ status: 200, body: hostile }));
    const orderId = newOrderId('nul');
    await service.publish([externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId, callbackUrl: target.url() })]);
    const [delivery] = await eventually(
      () => deliveriesOf(merchant.merchantId, orderId),
      (list) => list[0]?.status === 'succeeded',
      'the delivery succeeded',
      10_000,
    );
    const excerpt = delivery?.attempts[0]?.response_excerpt ?? '';
    expect(delivery?.attempts.map((attempt) => [attempt.outcome, attempt.response_status])).toEqual([['succeeded', 200]]);
    expect(excerpt.startsWith('ok\uFFFDnul\uFFFD')).toBe(true);
    expect(excerpt).not.toContain('\u0000');
    expect(excerpt.length).toBeLessThanOrEqual(512);
    await service.advanceClock(120);
    await settle(1_000);
    expect(target.received).toHaveLength(1);
  });

  it("refuses at delivery a callback to a host off the merchant's allow-list, read with the webhook profile", async () => {
    const merchant = service.gateway.addMerchant();
    const profile = service.gateway.profiles.get(merchant.merchantId);
    if (!profile) throw new Error('no profile');
    profile.allowed_callback_destinations = ['shop.example'];
    const target = await receiver();
    const orderId = newOrderId('allow-list');
    await service.publish([externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId, callbackUrl: target.url() })]);
    const [delivery] = await eventually(
      () => deliveriesOf(merchant.merchantId, orderId),
      (list) => list[0]?.attempts[0]?.outcome === 'refused_destination',
      'a refused attempt',
      20_000,
    );
    expect(delivery.attempts[0].error).toBe("host 127.0.0.1 is not on this merchant's callback allow-list");
    expect(target.received).toHaveLength(0);
  });
});
