import { LEDGER_ACCOUNTS, zeroBalances, type AccountBalances, type LedgerAccount } from '@mp/ledger-domain';
import type { AccountBalancesInMinorUnits, EndOfDayBalancesView } from '@mp/contracts-ledger';
import type { EntityManager } from 'typeorm';

/** Each account's running-balance column of ledger_balances, as (account, amount) rows. */
const RUNNING_BALANCES = `(VALUES ${LEDGER_ACCOUNTS.map((account) => `('${account}', b.${account})`).join(', ')})`;

/**
 * A merchant's balances per currency at `instant`: the sum of every posting recorded before it, a
 * credit adding its amount to the account and a debit taking it away (as sumPostings nets the
 * postings the projector moves the running balances by). Computed backwards so its cost does not
 * grow with the merchant's history: the running balances (`ledger_balances`, the sum of every
 * posting so far) minus the postings recorded at or after `instant`, read in one statement, so
 * from one snapshot in which both are written together. That is the postings of the days since
 * `instant` (none for a day still running, a day's worth for yesterday's report), found through
 * ledger_postings_period; a currency is listed once it had moved before `instant`, one probe of
 * ledger_postings_currency_time. Summing forward from the first posting grew with the history
 * (docs/operations/as-of-reads.md has the measure).
 */
export async function balancesAsOf(manager: EntityManager, merchantId: string, instant: Date): Promise<Map<string, AccountBalances>> {
  const rows: Array<{ currency: string; account: LedgerAccount; net: string }> = await manager.query(
    `WITH held AS (
       SELECT b.* FROM ledger_balances b
        WHERE b.merchant_id = $1 AND EXISTS (SELECT 1 FROM ledger_postings p WHERE p.merchant_id = $1 AND p.currency = b.currency AND p.recorded_at < $2)
     )
     SELECT currency, account, sum(amount)::text AS net FROM (
       SELECT b.currency, running.account, running.amount FROM held b CROSS JOIN LATERAL ${RUNNING_BALANCES} AS running(account, amount)
       UNION ALL
       SELECT currency, credit_account, -amount_minor FROM ledger_postings WHERE merchant_id = $1 AND recorded_at >= $2 AND currency IN (SELECT currency FROM held)
       UNION ALL
       SELECT currency, debit_account, amount_minor FROM ledger_postings WHERE merchant_id = $1 AND recorded_at >= $2 AND currency IN (SELECT currency FROM held)
     ) AS moves GROUP BY currency, account`,
    [merchantId, instant],
  );
  const balances = new Map<string, AccountBalances>();
  for (const row of rows) {
    const ledger = balances.get(row.currency) ?? zeroBalances();
    ledger[row.account] = BigInt(row.net);
    balances.set(row.currency, ledger);
  }
  return balances;
}

/**
 * Opening and closing balances of one UTC day, both from balancesAsOf: the end of the previous
 * day and the end of this one (docs/operations/as-of-reads.md).
 */
export async function endOfDayBalances(manager: EntityManager, merchantId: string, date: string): Promise<EndOfDayBalancesView> {
  const start = new Date(`${date}T00:00:00.000Z`);
  const end = new Date(start.getTime() + 24 * 60 * 60 * 1000);
  const [opening, closing] = [await balancesAsOf(manager, merchantId, start), await balancesAsOf(manager, merchantId, end)];
  const inMinorUnits = (balances: AccountBalances | undefined): AccountBalancesInMinorUnits =>
    Object.fromEntries(LEDGER_ACCOUNTS.map((account) => [account, (balances?.[account] ?? 0n).toString()])) as AccountBalancesInMinorUnits;
  return {
    merchant_id: merchantId,
    date,
    currencies: [...closing.keys()]
      .sort()
      .map((currency) => ({ currency, opening: inMinorUnits(opening.get(currency)), closing: inMinorUnits(closing.get(currency)) })),
  };
}
