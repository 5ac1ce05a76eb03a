import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The payments read model (one row per order, rebuilt from the event store when needed) and
 * the payments context's reference data: payment agents, per-merchant method configuration,
 * and payout receipt files.
 */
export class PaymentsSchema1700000001000 implements MigrationInterface {
  name = 'PaymentsSchema1700000001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE payment_orders (
        merchant_id TEXT NOT NULL,
        order_id TEXT NOT NULL,
        direction TEXT NOT NULL CHECK (direction IN ('incoming', 'outgoing')),
        status TEXT NOT NULL CHECK (status IN ('PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED')),
        -- NUMERIC, not BIGINT: 10^12 units of an 18-decimal asset exceed 64 bits.
        amount_minor NUMERIC(40, 0) NOT NULL CHECK (amount_minor > 0),
        fee_minor NUMERIC(40, 0) NOT NULL CHECK (fee_minor >= 0),
        currency TEXT NOT NULL,
        country TEXT NOT NULL,
        method TEXT NOT NULL,
        callback_url TEXT NOT NULL,
        account_number TEXT,
        payer_page_token TEXT UNIQUE,
        agent_id TEXT,
        payer_marked_paid_at TIMESTAMPTZ,
        failure_reason TEXT,
        expires_at TIMESTAMPTZ NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        -- The last event applied; a redelivered or older event never overwrites a newer row.
        stream_version INTEGER NOT NULL,
        -- Position in creation order, the tiebreaker that makes list cursors stable.
        list_position BIGSERIAL NOT NULL UNIQUE,
        PRIMARY KEY (merchant_id, order_id)
      )`);
    await queryRunner.query(`CREATE INDEX payment_orders_merchant_list ON payment_orders (merchant_id, direction, list_position DESC)`);
    await queryRunner.query(`CREATE INDEX payment_orders_agent ON payment_orders (agent_id, list_position DESC) WHERE agent_id IS NOT NULL`);
    await queryRunner.query(`CREATE INDEX payment_orders_due ON payment_orders (expires_at) WHERE status = 'PENDING'`);

    await queryRunner.query(`
      CREATE TABLE payment_agents (
        agent_id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        -- Shown to payers on the payment page, e.g. the card or account to pay to.
        payment_details TEXT NOT NULL,
        -- [{"method", "country", "currency"}]: what the agent serves.
        serves JSONB NOT NULL,
        active BOOLEAN NOT NULL DEFAULT true,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE merchant_method_configs (
        merchant_id TEXT PRIMARY KEY,
        -- The merchant's catalog (the entries docs/api/money-and-fees.md describes, amounts in minor units as strings).
        entries JSONB NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);

    await queryRunner.query(`
      CREATE TABLE payout_receipts (
        receipt_id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL,
        order_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        file_name TEXT NOT NULL,
        content_type TEXT NOT NULL CHECK (content_type IN ('application/pdf', 'image/png', 'image/jpeg')),
        size_bytes INTEGER NOT NULL CHECK (size_bytes BETWEEN 1 AND 5242880),
        content BYTEA NOT NULL,
        sha256 TEXT NOT NULL,
        uploaded_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX payout_receipts_order ON payout_receipts (merchant_id, order_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE payout_receipts`);
    await queryRunner.query(`DROP TABLE merchant_method_configs`);
    await queryRunner.query(`DROP TABLE payment_agents`);
    await queryRunner.query(`DROP TABLE payment_orders`);
  }
}
