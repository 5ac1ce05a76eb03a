import { evolveCallbackDelivery, initialCallbackDeliveryState, type CallbackDeliveryState } from '@mp/callbacks-domain';
import type { RebuildableProjection, StreamFolder } from '@mp/shared-command-handling';
import type { EntityManager } from 'typeorm';
import { callbackDeliveryEvents } from '../persistence/delivery-events';

/**
 * Writes a delivery's folded state as the dispatcher's statements left it: the row (its lease
 * aside) and its attempts, into the tables the search path names.
 */
async function writeDelivery(manager: EntityManager, state: CallbackDeliveryState, version: number): Promise<void> {
  const delivery = state.delivery;
  if (!delivery) return;
  await manager.query(
    `INSERT INTO callback_deliveries (delivery_id, source_event_id, source_event_type, source_topic, merchant_id, subject_kind, subject_id, callback_type,
                                      state_version, target_url, body, status, attempt_count, next_attempt_at, delivered_at, created_at, stream_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
     ON CONFLICT (delivery_id) DO UPDATE
        SET target_url = excluded.target_url, status = excluded.status, attempt_count = excluded.attempt_count, next_attempt_at = excluded.next_attempt_at,
            delivered_at = excluded.delivered_at, stream_version = excluded.stream_version`,
    [
      delivery.deliveryId,
      delivery.sourceEventId,
      delivery.sourceEventType,
      delivery.sourceTopic,
      delivery.merchantId,
      delivery.subjectKind,
      delivery.subjectId,
      delivery.callbackType,
      delivery.stateVersion,
      delivery.targetUrl,
      delivery.body,
      delivery.status,
      delivery.attemptCount,
      delivery.nextAttemptAt,
      delivery.deliveredAt,
      delivery.createdAt,
      version,
    ],
  );
  await manager.query(`DELETE FROM callback_attempts WHERE delivery_id = $1`, [delivery.deliveryId]);
  const attempts = [...state.attempts.values()];
  if (attempts.length === 0) return;
  const column = <T>(pick: (attempt: (typeof attempts)[number]) => T) => attempts.map(pick);
  await manager.query(
    `INSERT INTO callback_attempts (delivery_id, attempt_number, started_at, instance_id, webhook_timestamp, outcome, response_status, latency_ms, response_excerpt, error)
     SELECT $1, * FROM unnest($2::int[], $3::timestamptz[], $4::text[], $5::bigint[], $6::text[], $7::int[], $8::int[], $9::text[], $10::text[])`,
    [
      delivery.deliveryId,
      column((attempt) => attempt.attemptNumber),
      column((attempt) => attempt.startedAt),
      column((attempt) => attempt.instanceId),
      column((attempt) => attempt.webhookTimestamp),
      column((attempt) => attempt.outcome),
      column((attempt) => attempt.responseStatus),
      column((attempt) => attempt.latencyMs),
      column((attempt) => attempt.responseExcerpt),
      column((attempt) => attempt.error),
    ],
  );
}

/** Each delivery stream folded with evolveCallbackDelivery, its state written after each run of its events. */
function deliveryFolder(): StreamFolder {
  const states = new Map<string, { state: CallbackDeliveryState; version: number }>();
  return {
    async apply(manager, streamId, stored) {
      const before = states.get(streamId) ?? { state: initialCallbackDeliveryState(), version: 0 };
      if (stored[0].streamVersion !== before.version + 1)
        throw new Error(`${streamId}: the rebuild expected version ${before.version + 1} and read ${stored[0].streamVersion}`);
      const state = stored.reduce((current, event) => evolveCallbackDelivery(current, callbackDeliveryEvents.read(event.envelope)), before.state);
      const version = stored[stored.length - 1].streamVersion;
      await writeDelivery(manager, state, version);
      states.set(streamId, { state, version });
    },
  };
}

/**
 * The callback dispatcher's deliveries and attempts, from the delivery streams
 * (docs/decisions/callback-delivery-events.md), in the order its writers lock them. Not
 * derivable: the lease (`lease_owner`, `lease_expires_at`: which replica holds an attempt, for how
 * long) and `list_position` (insertion order). `target_origin` and `order_id` are generated from
 * the row, so neither compared nor copied.
 */
export const CALLBACKS_DELIVERIES_PROJECTION: RebuildableProjection = {
  service: 'callbacks',
  name: 'deliveries',
  description: 'callback deliveries and their attempts',
  tables: [{ name: 'callback_deliveries', notDerived: ['lease_owner', 'lease_expires_at', 'list_position'] }, { name: 'callback_attempts' }],
  streams: 'callback-delivery:%',
  folder: () => deliveryFolder(),
};

export const CALLBACKS_PROJECTIONS: readonly RebuildableProjection[] = [CALLBACKS_DELIVERIES_PROJECTION];
