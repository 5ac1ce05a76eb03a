import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A pay-in's own return URL and every order's merchant metadata, shown by status
 * reads and lists. Orders created before have none: null and `{}`, as their creation events
 * read through the upcasters.
 */
export class PaymentOrderMetadata1700000039000 implements MigrationInterface {
  name = 'PaymentOrderMetadata1700000039000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE payment_orders ADD COLUMN IF NOT EXISTS return_url text, ADD COLUMN IF NOT EXISTS metadata jsonb NOT NULL DEFAULT '{}'::jsonb`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payment_orders DROP COLUMN IF EXISTS return_url, DROP COLUMN IF EXISTS metadata`);
  }
}
