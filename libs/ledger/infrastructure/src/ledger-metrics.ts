import type { MetricsRegistry } from '@mp/shared-metrics';
import type { DataSource } from 'typeorm';

/** Counted by the ledger projection when the posting's transaction commits (countAfterCommit). */
export const LEDGER_POSTINGS_METRIC = 'ledger_postings_total';

/**
 * The ledger's series: postings booked by this process, by posting code (a closed list), and
 * holds open per currency, read at scrape time over the partial index of pending holds.
 */
export function registerLedgerMetrics(metrics: MetricsRegistry, dataSource: DataSource): void {
  metrics.counter({ name: LEDGER_POSTINGS_METRIC, help: 'Ledger postings this process booked (committed), by posting code', labelNames: ['code'] });
  metrics.gauge({
    name: 'ledger_holds_open',
    help: 'Holds (frozen funds of payouts and withdrawals) neither posted nor voided yet, by currency',
    labelNames: ['currency'],
    async collect() {
      const rows: Array<{ currency: string; open: number }> = await dataSource.query(
        `SELECT currency, count(*)::int AS open FROM ledger_holds WHERE status = 'pending' GROUP BY currency`,
      );
      this.reset();
      for (const row of rows) this.set({ currency: row.currency }, row.open);
    },
  });
}
