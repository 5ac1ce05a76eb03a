import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The disputes database: what it knows of orders (a projection of payments' external events,
 * only the facts the rules need), the disputes projection for lists and state objects, and the
 * receipts merchants attach (bytes kept here, never on Kafka).
 */
export class DisputesSchema1700000010000 implements MigrationInterface {
  name = 'DisputesSchema1700000010000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE dispute_orders (
        merchant_id TEXT NOT NULL,
        order_id TEXT NOT NULL,
        direction TEXT NOT NULL,
        status TEXT NOT NULL,
        amount_minor BIGINT NOT NULL,
        currency TEXT NOT NULL,
        agent_id TEXT,
        created_at TIMESTAMPTZ NOT NULL,
        -- the payments stream version of the last event applied: older events change nothing
        order_version INTEGER NOT NULL,
        PRIMARY KEY (merchant_id, order_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE disputes (
        dispute_id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        order_id TEXT NOT NULL,
        status TEXT NOT NULL,
        amount_minor BIGINT,
        currency TEXT NOT NULL,
        comment TEXT,
        receipt JSONB,
        review JSONB,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        stream_version INTEGER NOT NULL,
        list_position BIGSERIAL NOT NULL,
        UNIQUE (merchant_id, order_id)
      )`);
    await queryRunner.query(`CREATE INDEX disputes_merchant_position ON disputes (merchant_id, list_position DESC)`);
    await queryRunner.query(`
      CREATE TABLE dispute_receipts (
        receipt_id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        file_name TEXT NOT NULL,
        content_type TEXT NOT NULL,
        size_bytes INTEGER NOT NULL,
        content BYTEA NOT NULL,
        stored_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE dispute_receipts`);
    await queryRunner.query(`DROP TABLE disputes`);
    await queryRunner.query(`DROP TABLE dispute_orders`);
  }
}
