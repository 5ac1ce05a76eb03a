import { PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION, paymentOrderEventTopic, paymentOrderKey } from '@mp/contracts-payments';
import { evolve, toExternalEvent, type PaymentOrder, type PaymentOrderEvent } from '@mp/payments-domain';
import type { AppendedEvents } from '@mp/shared-command-handling';
import { createEnvelope, enqueueOutbox, type OutgoingMessage } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';

/**
 * What other contexts learn of an order's change: the outbox write to `payments.order.events` or
 * `payments.order.progress` (paymentOrderEventTopic), in the command's transaction, keyed by order
 * so they keep their order on each topic. The one place that decides what leaves the service: only
 * external events, never the internal ones (which stay in payments' event store with their secrets).
 */
export async function publishOrderEvents(manager: EntityManager, appended: AppendedEvents<PaymentOrder, PaymentOrderEvent>): Promise<void> {
  const [first] = appended.envelopes;
  if (!first) return;
  // The external events are caused by the same command as the internal ones they map.
  const causation = { id: first.causationId ?? first.id, correlationId: first.correlationId };
  await enqueueOutbox(manager, externalOrderEventMessages(appended.stateBefore, appended.versionBefore, appended.events, causation));
}

/**
 * Each internal event mapped to its external form with the order as it stands after that event
 * and the stream version it took. `stateBefore` and `versionBefore` are what the events were
 * decided on.
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
      topic: paymentOrderEventTopic(external.type, external.data.direction),
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
