// The dispatcher's event store: every change to a delivery's row or attempts appends its event
// to the delivery's stream in the same transaction (docs/decisions/callback-delivery-events.md).
import { CALLBACK_DELIVERY_EVENT_SCHEMAS, callbackDeliveryStreamId, type CallbackDeliveryEvent } from '@mp/callbacks-domain';
import { eventCodec } from '@mp/shared-decider';
import { appendToStream, createEnvelope, withOneWriteStatement } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';

export const callbackDeliveryEvents = eventCodec(CALLBACK_DELIVERY_EVENT_SCHEMAS);

/** One delivery's event, and the stream version its row's UPDATE (or INSERT) gave it: the event's own version. */
export interface DeliveryChange {
  deliveryId: string;
  version: number;
  event: CallbackDeliveryEvent;
}

/** An instant as events carry it (null stays null). */
export const instant = (value: Date | string | null): string | null => (value === null ? null : new Date(value).toISOString());

/**
 * Appends each change's event after the version before it. The row the statement changed is
 * locked until the transaction ends, so appends to one stream are serialised by it; the appends
 * of many deliveries are one statement (withOneWriteStatement), or join the caller's.
 */
export async function appendDeliveryChanges(manager: EntityManager, changes: readonly DeliveryChange[], now: Date): Promise<void> {
  if (changes.length === 0) return;
  await withOneWriteStatement(manager, async () => {
    for (const change of changes) {
      const streamId = callbackDeliveryStreamId(change.deliveryId);
      const envelope = createEnvelope({
        type: change.event.type,
        schemaVersion: callbackDeliveryEvents.versionOf(change.event.type),
        source: 'callbacks',
        subject: streamId,
        time: now,
        correlationId: change.deliveryId,
        data: change.event.data,
      });
      await appendToStream(manager, streamId, change.version - 1, [envelope]);
    }
  });
}

/**
 * Runs `work` in the caller's transaction, or in one of its own when the caller has none: a
 * delivery's change and its event are written together or not at all.
 */
export function inTransaction<T>(manager: EntityManager, work: (manager: EntityManager) => Promise<T>): Promise<T> {
  return manager.queryRunner?.isTransactionActive ? work(manager) : manager.transaction(work);
}
