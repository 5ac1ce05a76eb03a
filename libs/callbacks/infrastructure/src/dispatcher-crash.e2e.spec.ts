import { CallbacksTestService, externalPaymentEvent, newOrderId } from '@mp/callbacks-testing';
import { CallbackReceiver, eventually } from '@mp/shared-testing';

/**
 * apps/callback-dispatcher as a real process, SIGKILLed while callbacks are in flight (the
 * receiver holds each request 1.5 s): after a restart every event is still delivered, and
 * duplicates (attempts whose answer the killed process never recorded) are counted. An end-to-end
 * file: the process runs from dist/, which the integration tier does not build.
 */
describe('dispatcher killed in the middle of deliveries', () => {
  let service: CallbacksTestService;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    service = await CallbacksTestService.start({ asProcess: true });
    receiver = await CallbackReceiver.start({ answer: () => ({ status: 200, delayMs: 1_500 }) });
  });

  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  it('delivers every event after a SIGKILL mid-delivery, duplicates counted', async () => {
    const merchants = [service.gateway.addMerchant(), service.gateway.addMerchant()];
    const events = Array.from({ length: 20 }, (_, index) => {
      const merchant = merchants[index % 2] as { merchantId: string };
      return externalPaymentEvent(index % 3 === 0 ? 'PaymentOrderFailed' : 'PaymentOrderSucceeded', {
        merchantId: merchant.merchantId,
        orderId: newOrderId(`crash-${index}`),
        callbackUrl: receiver.url(),
      });
    });
    await service.publish(events);
    await eventually(
      () => receiver.received.length,
      (count) => count >= 3,
      'callbacks in flight',
      30_000,
    );
    await service.killProcess();
    const receivedAtKill = receiver.received.length;
    await service.startProcess();

    const expected = new Set(events.map((event) => `msg_${event.id.replace(/-/g, '')}`));
    const delivered = () => new Set(receiver.received.map((callback) => callback.headers['webhook-id'] as string));
    await eventually(delivered, (ids) => [...expected].every((id) => ids.has(id)), 'every event delivered', 90_000);
    const rows = await eventually(
      () => service.query<{ status: string; count: number }>(`SELECT status, count(*)::int AS count FROM callback_deliveries GROUP BY status`),
      (statuses) => statuses.length === 1 && statuses[0]?.status === 'succeeded',
      'every delivery recorded as succeeded',
      30_000,
    );
    expect(rows).toEqual([{ status: 'succeeded', count: 20 }]);
    expect(delivered()).toEqual(expected);
    const duplicates = receiver.received.length - expected.size;
    const [{ abandoned }] = await service.query<{ abandoned: number }>(`SELECT count(*)::int AS abandoned FROM callback_attempts WHERE outcome = 'in_flight'`);
    console.log(
      `dispatcher crash: ${receivedAtKill} requests in flight or done at the kill, ${receiver.received.length} requests for ${expected.size} events, ${duplicates} duplicates, ${abandoned} attempts cut short by the kill`,
    );
    // Every duplicate is an attempt the killed process never saw answered.
    expect(duplicates).toBeLessThanOrEqual(abandoned);
    expect(abandoned).toBeGreaterThan(0);
  });
});
