import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sandbox (test-mode) merchants: a merchant of its own, `test_` and its live merchant's id,
 * with its own secrets. `mode` says which it is and `live_merchant_id` links a test merchant
 * to its live one (one each); the checks keep the two consistent with the id's prefix.
 */
export class AccessSandboxMerchants1700000032100 implements MigrationInterface {
  name = 'AccessSandboxMerchants1700000032100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE merchants
        ADD COLUMN mode TEXT NOT NULL DEFAULT 'live' CHECK (mode IN ('live', 'test')),
        ADD COLUMN live_merchant_id TEXT UNIQUE REFERENCES merchants (merchant_id),
        ADD CONSTRAINT merchants_test_mode_linked CHECK ((mode = 'test') = (live_merchant_id IS NOT NULL) AND (mode = 'test') = (merchant_id LIKE 'test\\_%'))`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE merchants DROP CONSTRAINT merchants_test_mode_linked, DROP COLUMN live_merchant_id, DROP COLUMN mode`);
  }
}
