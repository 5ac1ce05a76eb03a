/**
 * Goal: balancesAsOf, worked back from the running balances, gives what summing every posting
 * from the first gives, at the end of the last day and of days before it; and measures both on
 * a merchant with a long history. Method: postings written straight into ledger_postings over
 * many days (two currencies), the running balances their sums. Small by default; the measure of
 * docs/operations/as-of-reads.md:
 * `COST_DAYS=365 COST_PER_DAY=1000 npm test -- libs/ledger/infrastructure/src/reads/balances-as-of-cost.int.spec.ts`.
 */
import { LEDGER_ACCOUNTS } from '@mp/ledger-domain';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { LEDGER_MIGRATIONS } from '../ledger.module';
import { balancesAsOf } from './balances-as-of';

const MERCHANT = 'mch_long';
const DAYS = Number(process.env['COST_DAYS'] ?? 200);
const PER_DAY = Number(process.env['COST_PER_DAY'] ?? 50);

async function forwardSum(dataSource: DataSource, instant: Date): Promise<unknown> {
  return dataSource.query(
    `SELECT currency, account, sum(amount)::text AS net FROM (
       SELECT currency, credit_account AS account, amount_minor AS amount FROM ledger_postings WHERE merchant_id = $1 AND recorded_at < $2
       UNION ALL
       SELECT currency, debit_account, -amount_minor FROM ledger_postings WHERE merchant_id = $1 AND recorded_at < $2
     ) AS moves GROUP BY currency, account ORDER BY 1, 2`,
    [MERCHANT, instant],
  );
}

describe('balancesAsOf on a long history, on real Postgres', () => {
  let dataSource: DataSource;
  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('bac', LEDGER_MIGRATIONS);
    await dataSource.query(
      `INSERT INTO ledger_postings (merchant_id, currency, posting_id, debit_account, credit_account, amount_minor, code, reference_kind, reference_id, event_id, recorded_at)
       SELECT $1, CASE WHEN i % 10 = 0 THEN 'USD' ELSE 'RUB' END, 'p' || i, 'clearing', 'settlement_available', 100 + i % 7, 'PAYIN_SETTLED', 'payment_order', 'o' || i, gen_random_uuid(),
              timestamptz '2025-01-01T00:00:00Z' + (i * interval '1 day' * $2::int / ($2::int * $3::int))
         FROM generate_series(0, $2::int * $3::int - 1) AS i`,
      [MERCHANT, DAYS, PER_DAY],
    );
    await dataSource.query(
      `INSERT INTO ledger_balances (merchant_id, currency, settlement_available, has_settlement, clearing)
       SELECT $1, currency, sum(amount_minor), true, -sum(amount_minor) FROM ledger_postings WHERE merchant_id = $1 GROUP BY currency`,
      [MERCHANT],
    );
    await dataSource.query(`ANALYZE ledger_postings; ANALYZE ledger_balances`);
  }, 300_000);
  afterAll(() => dataSource?.destroy());

  it('equals the sum of every posting from the first, at a cost that follows the days since, not the history', async () => {
    const time = async (work: () => Promise<unknown>): Promise<number> => {
      await work();
      const runs = 5;
      const started = process.hrtime.bigint();
      for (let run = 0; run < runs; run += 1) await work();
      return Number(process.hrtime.bigint() - started) / 1e6 / runs;
    };
    const lines: string[] = [`${DAYS * PER_DAY} postings over ${DAYS} days`];
    for (const daysBack of [0, 1, 30, 180]) {
      const instant = new Date(Date.UTC(2025, 0, 1 + DAYS - daysBack));
      const backwards = await balancesAsOf(dataSource.manager, MERCHANT, instant);
      const forward = (await forwardSum(dataSource, instant)) as Array<{ currency: string; account: string; net: string }>;
      expect([...backwards.keys()].sort()).toEqual([...new Set(forward.map((row) => row.currency))].sort());
      expect(backwards.size).toBe(2);
      for (const row of forward) expect(backwards.get(row.currency)?.[row.account as (typeof LEDGER_ACCOUNTS)[number]]).toBe(BigInt(row.net));
      lines.push(
        `end of day ${daysBack} days before the last: backwards ${(await time(() => balancesAsOf(dataSource.manager, MERCHANT, instant))).toFixed(1)} ms, forward ${(await time(() => forwardSum(dataSource, instant))).toFixed(1)} ms`,
      );
    }
    console.log(lines.join('\n'));
  }, 300_000);
});
