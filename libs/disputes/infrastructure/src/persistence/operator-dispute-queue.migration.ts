import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24: operators review disputes from a queue across merchants (`GET /backoffice/v1/disputes`,
 * newest first, optionally by status), as the console shows it. Without these the queue would
 * scan the whole table; with them each page reads only its rows, like the per-merchant list.
 */
export class OperatorDisputeQueue1700000033000 implements MigrationInterface {
  name = 'OperatorDisputeQueue1700000033000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX disputes_position ON disputes (list_position DESC)`);
    await queryRunner.query(`CREATE INDEX disputes_status_position ON disputes (status, list_position DESC)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX disputes_status_position`);
    await queryRunner.query(`DROP INDEX disputes_position`);
  }
}
