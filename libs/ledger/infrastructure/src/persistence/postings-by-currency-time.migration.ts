import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * ledger_postings (merchant_id, currency, recorded_at): whether a merchant had moved money in a
 * currency before an instant, one index probe, for balancesAsOf (reads/balances-as-of.ts), which
 * works back from the running balances over the postings after the instant and must not list a
 * currency that had not moved yet. Without it that question scans the merchant's history. One
 * more index written per posting.
 */
export class LedgerPostingsByCurrencyTime1700000060410 implements MigrationInterface {
  name = 'LedgerPostingsByCurrencyTime1700000060410';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX IF NOT EXISTS ledger_postings_currency_time ON ledger_postings (merchant_id, currency, recorded_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS ledger_postings_currency_time`);
  }
}
