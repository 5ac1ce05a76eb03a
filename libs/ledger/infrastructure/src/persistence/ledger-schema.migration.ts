import type { MigrationInterface, QueryRunner } from 'typeorm';

const ACCOUNTS = `'settlement_available', 'settlement_frozen', 'deposit', 'fee_revenue', 'clearing'`;

/**
 * The ledger's projections of its event store (one stream per merchant × currency):
 * - `ledger_balances`: the merchant accounts per currency, and the row every writer of that
 *   ledger locks (`SELECT … FOR UPDATE`), so writers of one ledger run one at a time;
 * - `ledger_postings`: every posting of every event, append-only, the statement lines;
 * - `ledger_holds`: two-phase holds and their state;
 * - `ledger_deposit_adjustments`: the operators' audit trail of deposit moves, append-only.
 * The database holds the invariants on its own: no merchant balance below zero, postings
 * that move a positive amount between two different accounts, unique posting ids.
 */
export class LedgerSchema1700000002000 implements MigrationInterface {
  name = 'LedgerSchema1700000002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE ledger_balances (
        merchant_id TEXT NOT NULL,
        currency TEXT NOT NULL,
        -- NUMERIC, not BIGINT: 10^12 units of an 18-decimal asset exceed 64 bits.
        settlement_available NUMERIC(40, 0) NOT NULL DEFAULT 0 CHECK (settlement_available >= 0),
        settlement_frozen NUMERIC(40, 0) NOT NULL DEFAULT 0 CHECK (settlement_frozen >= 0),
        deposit NUMERIC(40, 0) NOT NULL DEFAULT 0 CHECK (deposit >= 0),
        -- Whether the account kind ever moved: the balances view lists a currency per kind held.
        has_settlement BOOLEAN NOT NULL DEFAULT false,
        has_deposit BOOLEAN NOT NULL DEFAULT false,
        -- The last event of the stream applied here; the executor refuses to write when it
        -- differs from the event store's, so the projection cannot silently drift.
        stream_version INTEGER NOT NULL DEFAULT 0 CHECK (stream_version >= 0),
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (merchant_id, currency)
      )`);

    await queryRunner.query(`
      CREATE TABLE ledger_postings (
        merchant_id TEXT NOT NULL,
        currency TEXT NOT NULL,
        posting_id TEXT NOT NULL,
        debit_account TEXT NOT NULL CHECK (debit_account IN (${ACCOUNTS})),
        credit_account TEXT NOT NULL CHECK (credit_account IN (${ACCOUNTS})),
        amount_minor NUMERIC(40, 0) NOT NULL CHECK (amount_minor > 0),
        code TEXT NOT NULL,
        reference_kind TEXT NOT NULL CHECK (reference_kind IN ('payment_order', 'withdrawal', 'deposit_adjustment')),
        reference_id TEXT NOT NULL,
        -- The ledger event that booked it (event_store.event_id).
        event_id UUID NOT NULL,
        -- The operator's reason for a deposit adjustment; empty otherwise.
        memo TEXT NOT NULL DEFAULT '',
        recorded_at TIMESTAMPTZ NOT NULL,
        -- Insertion order, the tiebreaker that makes statement cursors stable.
        position BIGSERIAL NOT NULL UNIQUE,
        CONSTRAINT ledger_postings_two_accounts CHECK (debit_account <> credit_account),
        PRIMARY KEY (merchant_id, currency, posting_id)
      )`);
    await queryRunner.query(`CREATE INDEX ledger_postings_statement ON ledger_postings (merchant_id, position DESC)`);
    await queryRunner.query(`CREATE INDEX ledger_postings_period ON ledger_postings (merchant_id, recorded_at, position)`);
    await queryRunner.query(`CREATE INDEX ledger_postings_reference ON ledger_postings (merchant_id, reference_kind, reference_id)`);

    await queryRunner.query(`
      CREATE TABLE ledger_holds (
        merchant_id TEXT NOT NULL,
        currency TEXT NOT NULL,
        hold_id TEXT NOT NULL,
        amount_minor NUMERIC(40, 0) NOT NULL CHECK (amount_minor > 0),
        fee_minor NUMERIC(40, 0) NOT NULL CHECK (fee_minor >= 0),
        status TEXT NOT NULL CHECK (status IN ('pending', 'posted', 'voided')),
        reference_kind TEXT NOT NULL CHECK (reference_kind IN ('payment_order', 'withdrawal')),
        reference_id TEXT NOT NULL,
        created_at TIMESTAMPTZ NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (merchant_id, currency, hold_id)
      )`);
    await queryRunner.query(`CREATE INDEX ledger_holds_pending ON ledger_holds (merchant_id, currency) WHERE status = 'pending'`);

    await queryRunner.query(`
      CREATE TABLE ledger_deposit_adjustments (
        merchant_id TEXT NOT NULL,
        currency TEXT NOT NULL,
        adjustment_id TEXT NOT NULL,
        -- Signed: a negative amount takes from the deposit.
        amount_minor NUMERIC(40, 0) NOT NULL CHECK (amount_minor <> 0),
        reason TEXT NOT NULL CHECK (btrim(reason) <> ''),
        operator_id TEXT NOT NULL CHECK (btrim(operator_id) <> ''),
        deposit_after NUMERIC(40, 0) NOT NULL CHECK (deposit_after >= 0),
        event_id UUID NOT NULL,
        recorded_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (merchant_id, currency, adjustment_id)
      )`);

    // Postings and the operators' trail are facts, like the events they come from.
    await queryRunner.query(`
      CREATE FUNCTION ledger_is_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
      END $$`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_postings_append_only BEFORE UPDATE OR DELETE ON ledger_postings
      FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only()`);
    await queryRunner.query(`
      CREATE TRIGGER ledger_deposit_adjustments_append_only BEFORE UPDATE OR DELETE ON ledger_deposit_adjustments
      FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ledger_deposit_adjustments`);
    await queryRunner.query(`DROP TABLE ledger_holds`);
    await queryRunner.query(`DROP TABLE ledger_postings`);
    await queryRunner.query(`DROP TABLE ledger_balances`);
    await queryRunner.query(`DROP FUNCTION ledger_is_append_only`);
  }
}
