import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Conversions between a merchant's settlement currencies (ledger-conversions.ts in the domain):
 * - the platform's `fx` account joins the accounts a posting may name;
 * - `conversion` joins the references a posting may belong to;
 * - `ledger_conversions` is the operators' audit trail, one row per conversion, append-only,
 *   like the deposit adjustments;
 * - `ledger_conversion_legs` is what a conversion leg decides from (`entriesReadBy`): one row
 *   per leg booked on a ledger, looked up by primary key like `ledger_credited_orders`;
 * - `ledger_balances.fx` is the running balance of the `fx` account, so the locked row still
 *   holds every account (LedgerRunningBalances1700000004000 added the other platform accounts).
 */
export class LedgerConversions1700000005000 implements MigrationInterface {
  name = 'LedgerConversions1700000005000';

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
    await queryRunner.query(`
      CREATE TABLE ledger_conversion_legs (
        merchant_id TEXT NOT NULL,
        currency TEXT NOT NULL,
        conversion_id TEXT NOT NULL,
        leg TEXT NOT NULL CHECK (leg IN ('debit', 'credit')),
        from_currency TEXT NOT NULL,
        to_currency TEXT NOT NULL,
        from_amount_minor NUMERIC(40, 0) NOT NULL,
        fee_minor NUMERIC(40, 0) NOT NULL,
        to_amount_minor NUMERIC(40, 0) NOT NULL,
        rate TEXT NOT NULL,
        reason TEXT NOT NULL,
        operator_id TEXT NOT NULL,
        event_id UUID NOT NULL,
        PRIMARY KEY (merchant_id, currency, conversion_id)
      )`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_conversion_legs_append_only BEFORE UPDATE OR DELETE ON ledger_conversion_legs
      FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only()`);
    await queryRunner.query(`ALTER TABLE ledger_balances ADD COLUMN fx NUMERIC(40, 0) NOT NULL DEFAULT 0`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE ledger_balances DROP COLUMN fx; DROP TABLE ledger_conversion_legs; DROP TABLE ledger_conversions`);
  }
}
