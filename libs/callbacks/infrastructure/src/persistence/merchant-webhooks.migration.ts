import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Merchants' webhook tools (`/v2/webhooks`):
 * - `list_position`, a growing number, so a merchant's delivery log pages newest first by keyset
 *   on (merchant_id, list_position) and never scans the merchant's whole history;
 * - `order_id`, the order a callback concerns (a dispute's disputed order; none for a test
 *   callback), generated from the row so no writer can forget it, filtered by its own index;
 * - each endpoint's current run of failed attempts, which disables it once long enough;
 * - why an endpoint was disabled (`gone`: a 410; `consecutive_failures`: that run).
 * Adding the columns rewrites callback_deliveries once (existing rows get theirs now).
 */
export class CallbacksMerchantWebhooks1700000032000 implements MigrationInterface {
  name = 'CallbacksMerchantWebhooks1700000032000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE callback_deliveries ADD COLUMN list_position BIGINT GENERATED ALWAYS AS IDENTITY`);
    await queryRunner.query(`
      ALTER TABLE callback_deliveries ADD COLUMN order_id TEXT GENERATED ALWAYS AS (
        CASE subject_kind WHEN 'dispute' THEN body::jsonb #>> '{data,order_id}' WHEN 'test' THEN NULL ELSE subject_id END
      ) STORED`);
    await queryRunner.query(`CREATE INDEX callback_deliveries_merchant_log ON callback_deliveries (merchant_id, list_position)`);
    await queryRunner.query(
      `CREATE INDEX callback_deliveries_merchant_order_log ON callback_deliveries (merchant_id, order_id, list_position) WHERE order_id IS NOT NULL`,
    );
    await queryRunner.query(`
      CREATE TABLE callback_endpoint_failures (
        merchant_id TEXT NOT NULL,
        url TEXT NOT NULL,
        consecutive_failures INTEGER NOT NULL,
        failing_since TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (merchant_id, url)
      )`);
    await queryRunner.query(
      `ALTER TABLE callback_disabled_endpoints ADD COLUMN cause TEXT NOT NULL DEFAULT 'gone' CHECK (cause IN ('gone', 'consecutive_failures'))`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE callback_disabled_endpoints DROP COLUMN cause`);
    await queryRunner.query(`DROP TABLE callback_endpoint_failures`);
    await queryRunner.query(`DROP INDEX callback_deliveries_merchant_order_log`);
    await queryRunner.query(`DROP INDEX callback_deliveries_merchant_log`);
    await queryRunner.query(`ALTER TABLE callback_deliveries DROP COLUMN order_id`);
    await queryRunner.query(`ALTER TABLE callback_deliveries DROP COLUMN list_position`);
  }
}
