import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversions between a merchant's settlement currencies (ledger-conversions.ts in the domain):
 * - the platform's `fx` account joins the accounts a posting may name;
 * - `conversion` joins the references a posting may belong to;
 * - `ledger_conversions` is the operators' audit trail, one row per conversion, append-only,
 *   like the deposit adjustments.
 */
export class LedgerConversions1700000004000 implements MigrationInterface {
  name = 'LedgerConversions1700000004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const accounts = `'settlement_available', 'settlement_frozen', 'deposit', 'fee_revenue', 'clearing', 'fx'`;
    await queryRunner.query(`
      ALTER TABLE ledger_postings
        DROP CONSTRAINT ledger_postings_debit_account_check,
        DROP CONSTRAINT ledger_postings_credit_account_check,
        DROP CONSTRAINT ledger_postings_reference_kind_check,
        ADD CONSTRAINT ledger_postings_debit_account_check CHECK (debit_account IN (${accounts})),
        ADD CONSTRAINT ledger_postings_credit_account_check CHECK (credit_account IN (${accounts})),
        ADD CONSTRAINT ledger_postings_reference_kind_check CHECK (reference_kind IN ('payment_order', 'withdrawal', 'deposit_adjustment', 'conversion'))`);
    await queryRunner.query(`
      CREATE TABLE ledger_conversions (
        merchant_id TEXT NOT NULL,
        conversion_id TEXT NOT NULL,
        from_currency TEXT NOT NULL,
        to_currency TEXT NOT NULL CHECK (to_currency <> from_currency),
        from_amount_minor NUMERIC(40, 0) NOT NULL CHECK (from_amount_minor > 0),
        fee_minor NUMERIC(40, 0) NOT NULL CHECK (fee_minor >= 0),
        to_amount_minor NUMERIC(40, 0) NOT NULL CHECK (to_amount_minor > 0),
        rate TEXT NOT NULL,
        reason TEXT NOT NULL CHECK (btrim(reason) <> ''),
        operator_id TEXT NOT NULL CHECK (btrim(operator_id) <> ''),
        recorded_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (merchant_id, conversion_id)
      )`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_conversions_append_only BEFORE UPDATE OR DELETE ON ledger_conversions
      FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ledger_conversions`);
  }
}
