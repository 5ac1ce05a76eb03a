import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where the payer page links back to when a pay-in names no `return_url` of its own,
 * set by the merchant (`PATCH /v2/merchant`). None until set.
 */
export class AccessDefaultReturnUrl1700000050390 implements MigrationInterface {
  name = 'AccessDefaultReturnUrl1700000050390';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE merchants ADD COLUMN IF NOT EXISTS default_return_url text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE merchants DROP COLUMN IF EXISTS default_return_url`);
  }
}
