import { PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION, PAYMENTS_TOPICS, paymentOrderKey } from '@mp/contracts-payments';
import { evolve, toExternalEvent, type PaymentOrder, type PaymentOrderEvent } from '@mp/payments-domain';
import { createEnvelope, type OutgoingMessage } from '@mp/shared-messaging';

/**
 * The outbox messages for `payments.order.events` of events just appended to an order's
 * stream: each internal event mapped to its external form with the order as it stands after
 * that event and the stream version it took. `stateBefore` and `versionBefore` are the order
 * and version the events were decided on.
 */
export function externalOrderEventMessages(
  stateBefore: PaymentOrder,
  versionBefore: number,
  events: readonly PaymentOrderEvent[],
  causation: { id: string; correlationId: string },
): OutgoingMessage[] {
  let state = stateBefore;
  return events.map((event, index) => {
    state = evolve(state, event);
    if (state.status === 'NotCreated') throw new Error(`invariant: ${event.type} leaves its order not created`);
    const external = toExternalEvent(event, state, versionBefore + index + 1);
    return {
      topic: PAYMENTS_TOPICS.orderEvents,
      key: paymentOrderKey(state.merchantId, state.orderId),
      envelope: createEnvelope({
        type: external.type,
        schemaVersion: PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION,
        source: 'payments',
        subject: `merchant:${state.merchantId}/order:${state.orderId}`,
        data: external.data,
        correlationId: causation.correlationId,
        causationId: causation.id,
      }),
    };
  });
}
