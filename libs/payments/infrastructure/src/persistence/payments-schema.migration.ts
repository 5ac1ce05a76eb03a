import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The payments read model: one row per order, rebuilt from the event store when needed. */
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
        currency TEXT NOT NULL,
        country TEXT NOT NULL,
        callback_url TEXT NOT NULL,
        payer_page_token TEXT UNIQUE,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        -- The last event applied; a redelivered or older event never overwrites a newer row.
        stream_version INTEGER NOT NULL,
        PRIMARY KEY (merchant_id, order_id)
      )`);
    await queryRunner.query(`CREATE INDEX payment_orders_by_merchant_created ON payment_orders (merchant_id, direction, created_at DESC, order_id DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE payment_orders`);
  }
}
