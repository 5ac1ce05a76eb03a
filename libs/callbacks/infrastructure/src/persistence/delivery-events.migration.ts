import {
  CALLBACK_DELIVERY_EVENT_SCHEMAS,
  callbackDeliveryStreamId,
  type AttemptFields,
  type CallbackDeliveryEvent,
  type DeliveryStatus,
} from '@mp/callbacks-domain';
import { CHAIN_GENESIS, chainHash, createEnvelope, eventDigest } from '@mp/shared-messaging';
import type { MigrationInterface, QueryRunner } from 'typeorm';

const BACKFILL_BATCH = 1_000;

/**
 * Deliveries as event streams (docs/decisions/callback-delivery-events.md): `stream_version`,
 * bumped and returned by every statement that changes a delivery or its attempts, so each knows
 * the version its event is appended after; and one CallbackDeliveryImported event per delivery
 * that exists now (its row and attempts as they stand), hash-chained as appendToStream chains
 * (the first event of its stream), so old deliveries fold too. Needs the messaging tables and the
 * hash chain (MessagingEventHashChain1700000060380), which run before it.
 */
export class CallbacksDeliveryEvents1700000070000 implements MigrationInterface {
  name = 'CallbacksDeliveryEvents1700000070000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE callback_deliveries ADD COLUMN stream_version INTEGER NOT NULL DEFAULT 0`);
    for (let after = ''; ;) {
      const rows: Array<Record<string, unknown> & { delivery_id: string }> = await queryRunner.query(
        `SELECT d.delivery_id, d.source_event_id, d.source_event_type, d.source_topic, d.merchant_id, d.subject_kind, d.subject_id, d.callback_type,
                d.state_version, d.target_url, d.body, d.status, d.attempt_count, d.next_attempt_at, d.delivered_at, d.created_at,
                COALESCE((SELECT json_agg(a ORDER BY a.attempt_number) FROM callback_attempts a WHERE a.delivery_id = d.delivery_id), '[]') AS attempts
           FROM callback_deliveries d WHERE d.delivery_id > $1 ORDER BY d.delivery_id LIMIT ${BACKFILL_BATCH}`,
        [after],
      );
      if (rows.length === 0) break;
      const events = rows.map((row) => {
        const streamId = callbackDeliveryStreamId(row.delivery_id);
        const event = importedEvent(row);
        const envelope = JSON.parse(
          JSON.stringify(
            createEnvelope({
              type: event.type,
              schemaVersion: CALLBACK_DELIVERY_EVENT_SCHEMAS[event.type].version,
              source: 'callbacks',
              subject: streamId,
              time: new Date(),
              correlationId: row.delivery_id,
              data: event.data,
            }),
          ),
        ) as { id: string; type: string; schemaVersion: number };
        return { streamId, envelope, hash: chainHash(CHAIN_GENESIS, eventDigest(streamId, 1, envelope)) };
      });
      await queryRunner.query(
        `INSERT INTO event_store (stream_id, stream_version, event_id, event_type, schema_version, envelope, hash)
         SELECT given.stream_id, 1, given.event_id, given.event_type, given.schema_version, given.envelope, given.hash
           FROM unnest($1::text[], $2::uuid[], $3::text[], $4::int[], $5::jsonb[], $6::bytea[]) AS given (stream_id, event_id, event_type, schema_version, envelope, hash)`,
        [
          events.map((event) => event.streamId),
          events.map((event) => event.envelope.id),
          events.map((event) => event.envelope.type),
          events.map((event) => event.envelope.schemaVersion),
          events.map((event) => JSON.stringify(event.envelope)),
          events.map((event) => event.hash),
        ],
      );
      await queryRunner.query(`UPDATE callback_deliveries SET stream_version = 1 WHERE delivery_id = ANY($1::text[])`, [rows.map((row) => row.delivery_id)]);
      after = rows[rows.length - 1].delivery_id;
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // The imported events stay: the event store is append-only.
    await queryRunner.query(`ALTER TABLE callback_deliveries DROP COLUMN stream_version`);
  }
}

const iso = (value: unknown): string | null => (value === null || value === undefined ? null : new Date(value as string).toISOString());

/** A delivery's row and attempts (as json_agg gives them) as its CallbackDeliveryImported event. */
function importedEvent(row: Record<string, unknown>): CallbackDeliveryEvent {
  const attempts = (row.attempts as Array<Record<string, unknown>>).map((attempt): AttemptFields => ({
    attemptNumber: attempt.attempt_number as number,
    startedAt: iso(attempt.started_at) as string,
    instanceId: attempt.instance_id as string,
    webhookTimestamp: Number(attempt.webhook_timestamp),
    outcome: attempt.outcome as string,
    responseStatus: (attempt.response_status as number | null) ?? null,
    latencyMs: (attempt.latency_ms as number | null) ?? null,
    responseExcerpt: (attempt.response_excerpt as string | null) ?? null,
    error: (attempt.error as string | null) ?? null,
  }));
  return {
    type: 'CallbackDeliveryImported',
    data: {
      deliveryId: row.delivery_id as string,
      sourceEventId: row.source_event_id as string,
      sourceEventType: row.source_event_type as string,
      sourceTopic: row.source_topic as string,
      merchantId: row.merchant_id as string,
      subjectKind: row.subject_kind as string,
      subjectId: row.subject_id as string,
      callbackType: row.callback_type as string,
      stateVersion: row.state_version as number,
      targetUrl: row.target_url as string,
      body: row.body as string,
      status: row.status as DeliveryStatus,
      nextAttemptAt: iso(row.next_attempt_at),
      createdAt: iso(row.created_at) as string,
      attemptCount: row.attempt_count as number,
      deliveredAt: iso(row.delivered_at),
      attempts,
    },
  };
}
