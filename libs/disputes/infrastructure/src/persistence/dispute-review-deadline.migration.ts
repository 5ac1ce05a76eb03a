import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 22: the dispute object shows `review_deadline`, stored with the projection so a read
 * never folds history. The events of opens and reopens carry it from now on; a dispute open
 * before this release gets what the event store's upcaster gives its stored open: the default
 * window (72 hours) after its last open or reopen, which is the row's `updated_at` while it is
 * OPEN (a review's outcome is projected only once payments has applied it).
 */
export class DisputeReviewDeadline1700000032200 implements MigrationInterface {
  name = 'DisputeReviewDeadline1700000032200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE disputes ADD COLUMN review_deadline TIMESTAMPTZ`);
    await queryRunner.query(`UPDATE disputes SET review_deadline = updated_at + interval '72 hours' WHERE status = 'OPEN'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE disputes DROP COLUMN review_deadline`);
  }
}
