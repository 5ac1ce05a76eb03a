import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Drops two indexes of ledger_postings that no query reads, each a write on every posting:
 * - ledger_postings_reference (merchant_id, reference_kind, reference_id): postings are read by
 *   merchant and position or period, and holds, credits and adjustments by their own tables;
 * - ledger_postings_position_key (position alone): every read of postings names the merchant,
 *   which ledger_postings_statement (merchant_id, position DESC) serves; the sequence alone
 *   makes positions unique.
 */
export class LedgerUnreadIndexes1700000030200 implements MigrationInterface {
  name = 'LedgerUnreadIndexes1700000030200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX IF EXISTS ledger_postings_reference`);
    await queryRunner.query(`ALTER TABLE ledger_postings DROP CONSTRAINT IF EXISTS ledger_postings_position_key`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ledger_postings ADD CONSTRAINT ledger_postings_position_key UNIQUE (position)`);
    await queryRunner.query(`CREATE INDEX ledger_postings_reference ON ledger_postings (merchant_id, reference_kind, reference_id)`);
  }
}
