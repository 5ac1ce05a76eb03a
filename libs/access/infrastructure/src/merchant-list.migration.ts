import { addListPosition } from '@mp/shared-data-access-postgres';
import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24: operators page through merchants (`GET /backoffice/v1/merchants`), newest first with
 * the API's cursors, which need a position that only grows. Existing merchants get theirs in
 * the order they were created.
 */
export class AccessMerchantList1700000033100 implements MigrationInterface {
  name = 'AccessMerchantList1700000033100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await addListPosition(queryRunner, 'merchants', 'created_at, merchant_id');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE merchants DROP COLUMN list_position`);
  }
}
