import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A read model filled from the order events by the projection rebuild (rebuild/payments.rebuild.ts):
 * each merchant's succeeded pay-ins per UTC day and currency, in minor units.
 */
export class DailyPayInTotals1700000040100 implements MigrationInterface {
  name = 'DailyPayInTotals1700000040100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE daily_payin_totals (
        merchant_id TEXT NOT NULL,
        day DATE NOT NULL,
        currency TEXT NOT NULL,
        orders INTEGER NOT NULL,
        amount_minor NUMERIC(40, 0) NOT NULL,
        fee_minor NUMERIC(40, 0) NOT NULL,
        PRIMARY KEY (merchant_id, day, currency)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE daily_payin_totals`);
  }
}
