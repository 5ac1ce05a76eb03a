import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The stream version of the last review outcome whose DisputeAcceptedVisible/DisputeRejectedVisible
 * was written: a repeated acknowledgement (the legacy command and the event) finds it here, on
 * the dispute's own row, and writes nothing twice. Null until the first review is acknowledged.
 */
export class DisputeOutcomePublished1700000033300 implements MigrationInterface {
  name = 'DisputeOutcomePublished1700000033300';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE disputes ADD COLUMN outcome_published_version INTEGER`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE disputes DROP COLUMN outcome_published_version`);
  }
}
