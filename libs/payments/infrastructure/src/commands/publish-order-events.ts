import { PAYMENTS_TOPICS, paymentOrderKey } from '@mp/contracts-payments';
import type { PaymentOrder, PaymentOrderEvent } from '@mp/payments-domain';
import type { AppendedEvents } from '@mp/shared-command-handling';
import { enqueueOutbox } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';

/**
 * What other contexts learn of an order's change: the outbox write of its events to
 * `payments.order.events`, in the command's transaction, keyed by order so they keep their
 * order on the topic. The one place that decides what leaves the service.
 */
export async function publishOrderEvents(manager: EntityManager, appended: AppendedEvents<PaymentOrder, PaymentOrderEvent>): Promise<void> {
  const order = appended.state;
  if (order.status === 'NotCreated') throw new Error(`events of ${appended.streamId} left no order`);
  const key = paymentOrderKey(order.merchantId, order.orderId);
  await enqueueOutbox(manager, appended.envelopes.map((envelope) => ({ topic: PAYMENTS_TOPICS.orderEvents, key, envelope })));
}
