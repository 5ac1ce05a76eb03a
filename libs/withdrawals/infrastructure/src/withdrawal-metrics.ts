import { setCounterTotals, type MetricsRegistry } from '@mp/shared-metrics';
import type { DataSource } from 'typeorm';
import { LATE_NETWORK_RESULTS_METRIC } from './persistence/late-network-results';

/** The send stages of a withdrawal still PENDING; finished ones are COMPLETED or FAILED. */
const IN_PROGRESS_STATES = ['queued', 'sending'] as const;

/**
 * The withdrawals' series, read from the database at scrape time: withdrawals in progress by
 * send stage and how long the oldest has been in it (over the partial index of PENDING rows),
 * and the late network results counter, whose durable totals live in withdrawal_metric_counters.
 */
export function registerWithdrawalMetrics(metrics: MetricsRegistry, dataSource: DataSource): void {
  let pending: Promise<Array<{ send_progress: string; withdrawals: number; oldest_age_seconds: number }>> | null = null;
  // One query serves both gauges of a scrape.
  const inProgress = () => {
    pending ??= dataSource
      .query(
        `SELECT send_progress, count(*)::int AS withdrawals, extract(epoch FROM now() - min(updated_at))::float8 AS oldest_age_seconds
           FROM withdrawals WHERE status = 'PENDING' GROUP BY send_progress`,
      )
      .finally(() => setImmediate(() => (pending = null)));
    return pending;
  };
  const byState = async () => {
    const rows = await inProgress();
    return IN_PROGRESS_STATES.map(
      (state) => rows.find((row) => row.send_progress === state) ?? { send_progress: state, withdrawals: 0, oldest_age_seconds: 0 },
    );
  };
  metrics.gauge({
    name: 'withdrawals_in_progress',
    help: 'Withdrawals not finished yet, by send stage (queued: waiting to be sent; sending: sent, network result awaited)',
    labelNames: ['state'],
    async collect() {
      for (const row of await byState()) this.set({ state: row.send_progress }, row.withdrawals);
    },
  });
  metrics.gauge({
    name: 'withdrawals_in_progress_oldest_age_seconds',
    help: 'Seconds since the longest-waiting unfinished withdrawal entered its send stage; 0 when there is none',
    labelNames: ['state'],
    async collect() {
      for (const row of await byState()) this.set({ state: row.send_progress }, Math.max(0, row.oldest_age_seconds));
    },
  });
  metrics.counter({
    name: LATE_NETWORK_RESULTS_METRIC,
    help: 'Network results that arrived after their withdrawal had finished, by outcome and whether they contradict it (durable, from withdrawal_metric_counters)',
    labelNames: ['outcome', 'contradicts'],
    async collect() {
      const rows: Array<{ labels: string; value: string }> = await dataSource.query(
        `SELECT labels, value::text FROM withdrawal_metric_counters WHERE metric = $1`,
        [LATE_NETWORK_RESULTS_METRIC],
      );
      setCounterTotals(
        this,
        rows.map((row) => ({ labels: parseLabelText(row.labels), value: Number(row.value) })),
      );
    },
  });
}

/** `outcome="completed",contradicts="true"` (the counter table's label text) as labels. */
function parseLabelText(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((match) => [match[1], match[2]]));
}
