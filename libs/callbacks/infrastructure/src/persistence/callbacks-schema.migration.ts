import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The dispatcher's own database: deliveries, every attempt, endpoints disabled by 410. */
export class CallbacksSchema1700000004000 implements MigrationInterface {
  name = 'CallbacksSchema1700000004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // One row per callback, written before the first attempt. source_event_id is unique, so a
    // redelivered event finds its delivery; the (merchant, subject, type, version) key absorbs a
    // copy of the same fact under another envelope id.
    await queryRunner.query(`
      CREATE TABLE callback_deliveries (
        delivery_id TEXT PRIMARY KEY,
        source_event_id UUID NOT NULL UNIQUE,
        source_event_type TEXT NOT NULL,
        source_topic TEXT NOT NULL,
        merchant_id TEXT NOT NULL,
        subject_kind TEXT NOT NULL,
        subject_id TEXT NOT NULL,
        callback_type TEXT NOT NULL,
        state_version INTEGER NOT NULL,
        target_url TEXT NOT NULL,
        body TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'endpoint_disabled')),
        attempt_count INTEGER NOT NULL DEFAULT 0,
        next_attempt_at TIMESTAMPTZ,
        lease_owner TEXT,
        lease_expires_at TIMESTAMPTZ,
        delivered_at TIMESTAMPTZ,
        created_at TIMESTAMPTZ NOT NULL,
        UNIQUE (merchant_id, subject_kind, subject_id, callback_type, state_version)
      )`);
    await queryRunner.query(`CREATE INDEX callback_deliveries_due ON callback_deliveries (next_attempt_at) WHERE status = 'pending'`);
    await queryRunner.query(`CREATE INDEX callback_deliveries_subject ON callback_deliveries (merchant_id, subject_kind, subject_id)`);
    // Written when an attempt is claimed (in_flight) and completed after the answer: an attempt
    // cut short by a crash stays in_flight, so possible duplicates are visible and counted.
    await queryRunner.query(`
      CREATE TABLE callback_attempts (
        delivery_id TEXT NOT NULL REFERENCES callback_deliveries (delivery_id),
        attempt_number INTEGER NOT NULL,
        started_at TIMESTAMPTZ NOT NULL,
        instance_id TEXT NOT NULL,
        webhook_timestamp BIGINT NOT NULL,
        outcome TEXT NOT NULL,
        response_status INTEGER,
        latency_ms INTEGER,
        response_excerpt TEXT,
        error TEXT,
        PRIMARY KEY (delivery_id, attempt_number)
      )`);
    await queryRunner.query(`
      CREATE TABLE callback_disabled_endpoints (
        merchant_id TEXT NOT NULL,
        url TEXT NOT NULL,
        disabled_at TIMESTAMPTZ NOT NULL,
        reason TEXT NOT NULL,
        PRIMARY KEY (merchant_id, url)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE callback_disabled_endpoints`);
    await queryRunner.query(`DROP TABLE callback_attempts`);
    await queryRunner.query(`DROP TABLE callback_deliveries`);
  }
}
