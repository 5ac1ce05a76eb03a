import { auditLedger } from '@mp/ledger-infrastructure';
import type { AuditCheck, Violation } from './audit-check';

/**
 * Every merchant account of the ledger, signed (credits − debits); summed over all of them per
 * currency the books must come to zero, since every posting debits one account and credits another.
 */
const SIGNED_ACCOUNTS = 'settlement_available + settlement_frozen + deposit + fee_revenue + clearing + fx';

export const postingsBalancePerCurrency: AuditCheck = {
  name: 'postings-balance-per-currency',
  description: 'Per currency, the signed balances of every account of every merchant sum to zero, and so do the postings (Σ credits = Σ debits).',
  reads: ['ledger'],
  async run({ connections: { ledger } }) {
    const { rows } = await ledger.query<{ currency: string; balances: string; postings: string }>(
      `SELECT currency, sum(balances)::text AS balances, sum(postings)::text AS postings FROM (
         SELECT currency, ${SIGNED_ACCOUNTS} AS balances, 0 AS postings FROM ledger_balances
         UNION ALL SELECT currency, 0, amount_minor FROM ledger_postings
         UNION ALL SELECT currency, 0, -amount_minor FROM ledger_postings) signed
       GROUP BY currency HAVING sum(balances) <> 0 OR sum(postings) <> 0`,
    );
    return rows.map((row) => ({ merchantId: null, message: `${row.currency}: the accounts of all merchants sum to ${row.balances}, not 0` }));
  },
};

export const availableNotNegative: AuditCheck = {
  name: 'available-not-negative',
  description: 'No merchant has a negative available (settlement_available), frozen or deposit balance.',
  reads: ['ledger'],
  async run({ connections: { ledger } }) {
    const { rows } = await ledger.query<{ merchant_id: string; currency: string; available: string; frozen: string; deposit: string }>(
      `SELECT merchant_id, currency, settlement_available::text AS available, settlement_frozen::text AS frozen, deposit::text AS deposit
       FROM ledger_balances WHERE settlement_available < 0 OR settlement_frozen < 0 OR deposit < 0`,
    );
    return rows.map((row) => ({
      merchantId: row.merchant_id,
      message: `merchant ${row.merchant_id} ${row.currency}: available ${row.available}, frozen ${row.frozen}, deposit ${row.deposit}`,
    }));
  },
};

export const frozenEqualsOpenHolds: AuditCheck = {
  name: 'frozen-equals-open-holds',
  description:
    'Per merchant and currency, the frozen balance equals the sum of its pending holds (amount + fee): no orphan hold, no frozen money without a hold.',
  reads: ['ledger'],
  async run({ connections: { ledger } }) {
    const { rows } = await ledger.query<{ merchant_id: string; currency: string; frozen: string; held: string }>(
      `SELECT merchant_id, currency, coalesce(b.settlement_frozen, 0)::text AS frozen, coalesce(h.held, 0)::text AS held
       FROM ledger_balances b
       FULL JOIN (SELECT merchant_id, currency, sum(amount_minor + fee_minor) AS held FROM ledger_holds WHERE status = 'pending' GROUP BY merchant_id, currency) h
         USING (merchant_id, currency)
       WHERE coalesce(b.settlement_frozen, 0) <> coalesce(h.held, 0)`,
    );
    return rows.map((row) => ({
      merchantId: row.merchant_id,
      message: `merchant ${row.merchant_id} ${row.currency}: frozen ${row.frozen}, pending holds ${row.held}`,
    }));
  },
};

/**
 * The ledger's own auditor (libs/ledger/infrastructure/src/audit): a full replay of the event
 * store against the balances and the postings, and every conversion's two legs against each
 * other and the FX trail. It reads every event, so it is the one check whose cost grows with the
 * history rather than with the number of ledgers.
 */
export const ledgerReplay: AuditCheck = {
  name: 'ledger-replay-and-conversions',
  description:
    'Per merchant and currency, the balances equal Σ postings equal the fold of the event store; holds, credits and deposit adjustments agree; every conversion has its debit leg and its credit leg with the same terms and one row in the FX trail.',
  reads: ['ledger'],
  async run({ connections: { ledger } }) {
    const report = await auditLedger(ledger);
    return report.discrepancies.map((message): Violation => ({ merchantId: /merchant (\S+)/.exec(message)?.[1] ?? null, message }));
  },
};
