import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A withdrawal or dispute outcome of a merchant that has no default callback URL yet is kept,
 * `awaiting_url` with an empty target, instead of being refused up front or dead-lettered: the
 * merchant may poll instead of receiving callbacks. Setting the URL (PATCH /v2/merchant) sends
 * them (resumeAwaitingUrl). Existing rows are untouched.
 */
export class CallbacksAwaitingUrl1700000050000 implements MigrationInterface {
  name = 'CallbacksAwaitingUrl1700000050000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE callback_deliveries DROP CONSTRAINT callback_deliveries_status_check`);
    await queryRunner.query(
      `ALTER TABLE callback_deliveries ADD CONSTRAINT callback_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed', 'endpoint_disabled', 'awaiting_url'))`,
    );
    await queryRunner.query(
      `ALTER TABLE callback_deliveries ADD CONSTRAINT callback_deliveries_awaiting_has_no_url CHECK ((status = 'awaiting_url') = (target_url = ''))`,
    );
    await queryRunner.query(`CREATE INDEX callback_deliveries_awaiting_url ON callback_deliveries (merchant_id) WHERE status = 'awaiting_url'`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX callback_deliveries_awaiting_url`);
    await queryRunner.query(`ALTER TABLE callback_deliveries DROP CONSTRAINT callback_deliveries_awaiting_has_no_url`);
    await queryRunner.query(`ALTER TABLE callback_deliveries DROP CONSTRAINT callback_deliveries_status_check`);
    await queryRunner.query(
      `ALTER TABLE callback_deliveries ADD CONSTRAINT callback_deliveries_status_check CHECK (status IN ('pending', 'succeeded', 'failed', 'endpoint_disabled'))`,
    );
  }
}
