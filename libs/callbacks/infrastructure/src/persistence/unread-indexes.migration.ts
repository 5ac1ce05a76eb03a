import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops two indexes no query needs any more, each a write on every delivery's insert and on
 * every attempt's update:
 * - callback_deliveries_due (next_attempt_at, pending rows): the claim reads pending rows by
 *   origin since fair claiming (callback_deliveries_pending_by_origin, the same rows), and the
 *   pending count walks that index as well;
 * - callback_deliveries_subject (merchant_id, subject_kind, subject_id): the delivery log's
 *   lookup by merchant and subject is served by the unique (merchant_id, subject_kind,
 *   subject_id, callback_type, state_version) index, which starts with the same columns.
 */
export class CallbacksUnreadIndexes1700000030100 implements MigrationInterface {
  name = 'CallbacksUnreadIndexes1700000030100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS callback_deliveries_due`);
    await queryRunner.query(`DROP INDEX IF EXISTS callback_deliveries_subject`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX callback_deliveries_subject ON callback_deliveries (merchant_id, subject_kind, subject_id)`);
    await queryRunner.query(`CREATE INDEX callback_deliveries_due ON callback_deliveries (next_attempt_at) WHERE status = 'pending'`);
  }
}
