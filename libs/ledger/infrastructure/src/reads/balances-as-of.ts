import { LEDGER_ACCOUNTS, zeroBalances, type AccountBalances, type LedgerAccount } from '@mp/ledger-domain';
import type { AccountBalancesInMinorUnits, EndOfDayBalancesView } from '@mp/contracts-ledger';
import type { EntityManager } from 'typeorm';

/**
 * A merchant's balances per currency at `instant`: every posting recorded before it, a credit
 * adding its amount to the account and a debit taking it away (as sumPostings nets the postings
 * the projector moves the running balances by). One grouped scan of the merchant's postings.
 */
export async function balancesAsOf(manager: EntityManager, merchantId: string, instant: Date): Promise<Map<string, AccountBalances>> {
  const rows: Array<{ currency: string; account: LedgerAccount; net: string }> = await manager.query(
    `SELECT currency, account, sum(amount)::text AS net FROM (
       SELECT currency, credit_account AS account, amount_minor AS amount FROM ledger_postings WHERE merchant_id = $1 AND recorded_at < $2
       UNION ALL
       SELECT currency, debit_account, -amount_minor FROM ledger_postings WHERE merchant_id = $1 AND recorded_at < $2
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
  return { merchant_id: merchantId, date, currencies: [...closing.keys()].sort().map((currency) => ({ currency, opening: inMinorUnits(opening.get(currency)), closing: inMinorUnits(closing.get(currency)) })) };
}
