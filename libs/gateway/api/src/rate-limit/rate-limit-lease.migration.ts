import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Leases (issue 21): a replica takes up to N tokens in one statement, so the bucket row records
 * how many the last statement granted. `last_taken` stays, written as `last_granted >= 1`, for
 * replicas of the previous release during a rolling deploy; a later release can drop it.
 */
export class GatewayRateLimitLeases1700000021000 implements MigrationInterface {
  name = 'GatewayRateLimitLeases1700000021000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE gateway_rate_limit_buckets ADD COLUMN last_granted INTEGER NOT NULL DEFAULT 0');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE gateway_rate_limit_buckets DROP COLUMN last_granted');
  }
}
