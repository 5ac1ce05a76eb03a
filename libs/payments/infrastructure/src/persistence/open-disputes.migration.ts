import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * While a dispute on an incoming order is OPEN the order is reported as PENDING (spec 4.9.4).
 * The flag lives on the order's own projection row, fed by the disputes context's external
 * events, so endpoints 3, 4 and 5 read one row per order as before: no call to the disputes
 * service per order or per list item. `dispute_version` is the dispute stream's version of the
 * last event applied, so a late or redelivered older event cannot flip the flag back.
 */
export class PaymentOrderOpenDisputes1700000011000 implements MigrationInterface {
  name = 'PaymentOrderOpenDisputes1700000011000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(
      `ALTER TABLE payment_orders ADD COLUMN open_dispute BOOLEAN NOT NULL DEFAULT false, ADD COLUMN dispute_version INTEGER NOT NULL DEFAULT 0`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE payment_orders DROP COLUMN open_dispute, DROP COLUMN dispute_version`);
  }
}
