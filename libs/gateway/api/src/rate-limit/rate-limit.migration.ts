import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Token buckets shared by every gateway replica, and operators' per-merchant overrides: one row per bucket (a merchant, a client
 * address, an address's authentication failures). A request takes a token with one
 * INSERT ... ON CONFLICT DO UPDATE that refills from the elapsed time under the row lock, so
 * replicas never read-modify-write the same bucket. Unlogged: a bucket is worth nothing after a
 * crash (it refills within seconds), and the table is written on every request, so it skips the
 * WAL and is not replicated.
 */
export class GatewayRateLimitBuckets1700000020000 implements MigrationInterface {
  name = 'GatewayRateLimitBuckets1700000020000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE UNLOGGED TABLE gateway_rate_limit_buckets (
        bucket_key TEXT PRIMARY KEY,
        tokens DOUBLE PRECISION NOT NULL,
        refilled_at TIMESTAMPTZ NOT NULL,
        last_taken BOOLEAN NOT NULL,
        -- The figures the last request applied (an override or the global ones): a refill uses the current ones.
        rate_per_second DOUBLE PRECISION NOT NULL,
        burst DOUBLE PRECISION NOT NULL
      )`);
    // An operator's figures for one bucket (a merchant), replacing the global ones. Logged: it is configuration.
    await queryRunner.query(`
      CREATE TABLE gateway_rate_limit_overrides (
        bucket_key TEXT PRIMARY KEY,
        rate_per_second DOUBLE PRECISION NOT NULL CHECK (rate_per_second > 0),
        burst DOUBLE PRECISION NOT NULL CHECK (burst >= 1),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        updated_by TEXT NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE gateway_rate_limit_overrides');
    await queryRunner.query('DROP TABLE gateway_rate_limit_buckets');
  }
}
