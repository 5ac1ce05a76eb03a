import { CallbacksTestService, externalPaymentEvent, newOrderId } from '@mp/callbacks-testing';
import { CallbackReceiver, eventually } from '@mp/shared-testing';

/**
 * Goal: a burst of callbacks to a merchant whose webhook secrets are not cached yet costs one
 * read of them from the gateway, not one per callback: the intake starts that read when it
 * records the deliveries, and every attempt waits for it or finds it cached. Method: the
 * dispatcher on the real broker and database, the gateway's internal listener stood in for by a
 * fake that counts its requests, a cache of a minute as deployed (the kit's default is none).
 */
describe('reading webhook secrets for a burst of callbacks', () => {
  let service: CallbacksTestService;
  let receiver: CallbackReceiver;

  beforeAll(async () => {
    service = await CallbacksTestService.start({ settings: { profileCacheTtlMs: 60_000 } });
    receiver = await CallbackReceiver.start();
  });

  afterAll(async () => {
    await service?.stop();
    await receiver?.stop();
  });

  it('reads one new merchant once for twenty callbacks published together, and every callback is signed and sent', async () => {
    const merchant = service.gateway.addMerchant();
    const before = service.gateway.requests;
    const events = Array.from({ length: 20 }, (_, index) =>
      externalPaymentEvent('PaymentOrderSucceeded', { merchantId: merchant.merchantId, orderId: newOrderId(`burst-${index}`), callbackUrl: receiver.url() }),
    );
    await service.publish(events);
    await eventually(
      () => receiver.received.length,
      (count) => count >= 20,
      'twenty callbacks',
      30_000,
    );
    expect(receiver.received.every((callback) => String(callback.headers['webhook-signature']).startsWith('v1,'))).toBe(true);
    expect(service.gateway.requests - before).toBe(1);
  });
});
