import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * What the ledger decides from instead of replaying a merchant's stream (see
 * docs/operations/ledger.md): running balances of every account on the locked `ledger_balances` row, and one row
 * per credited order, the idempotency record a CreditPayIn looks up. Holds and deposit
 * adjustments already have their rows. Both are filled from what is already booked: platform
 * balances from the postings, credited orders from the event store.
 */
export class LedgerRunningBalances1700000004000 implements MigrationInterface {
  name = 'LedgerRunningBalances1700000004000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE ledger_balances
        ADD COLUMN fee_revenue NUMERIC(40, 0) NOT NULL DEFAULT 0,
        ADD COLUMN clearing NUMERIC(40, 0) NOT NULL DEFAULT 0;
      UPDATE ledger_balances b SET
        fee_revenue = COALESCE((SELECT sum(CASE WHEN p.credit_account = 'fee_revenue' THEN p.amount_minor ELSE -p.amount_minor END)
                                  FROM ledger_postings p WHERE p.merchant_id = b.merchant_id AND p.currency = b.currency
                                   AND 'fee_revenue' IN (p.credit_account, p.debit_account)), 0),
        clearing = COALESCE((SELECT sum(CASE WHEN p.credit_account = 'clearing' THEN p.amount_minor ELSE -p.amount_minor END)
                               FROM ledger_postings p WHERE p.merchant_id = b.merchant_id AND p.currency = b.currency
                                AND 'clearing' IN (p.credit_account, p.debit_account)), 0);
    `);
    await queryRunner.query(`
      CREATE TABLE ledger_credited_orders (
        merchant_id TEXT NOT NULL,
        currency TEXT NOT NULL,
        order_id TEXT NOT NULL,
        amount_minor NUMERIC(40, 0) NOT NULL CHECK (amount_minor > 0),
        fee_minor NUMERIC(40, 0) NOT NULL CHECK (fee_minor >= 0 AND fee_minor <= amount_minor),
        reason TEXT NOT NULL CHECK (reason IN ('payin_succeeded', 'dispute_accepted')),
        event_id UUID NOT NULL,
        recorded_at TIMESTAMPTZ NOT NULL,
        PRIMARY KEY (merchant_id, currency, order_id)
      );
      CREATE TRIGGER ledger_credited_orders_append_only BEFORE UPDATE OR DELETE ON ledger_credited_orders
        FOR EACH ROW EXECUTE FUNCTION ledger_is_append_only();
      INSERT INTO ledger_credited_orders (merchant_id, currency, order_id, amount_minor, fee_minor, reason, event_id, recorded_at)
      SELECT envelope->'data'->>'merchantId', envelope->'data'->>'currency', envelope->'data'->>'orderId',
             (envelope->'data'->>'amountMinor')::numeric, (envelope->'data'->>'feeMinor')::numeric, envelope->'data'->>'reason',
             event_id, (envelope->'data'->>'occurredAt')::timestamptz
        FROM event_store WHERE event_type = 'PayInCredited' AND stream_id LIKE 'ledger:%';
    `);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE ledger_credited_orders; ALTER TABLE ledger_balances DROP COLUMN fee_revenue, DROP COLUMN clearing;`);
  }
}
