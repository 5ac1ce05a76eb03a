import type { CallbackAttemptOutcome } from '@mp/contracts-callbacks';
import type { MetricsRegistry } from '@mp/shared-metrics';
import type { DataSource } from 'typeorm';

/** Counted by recordAttempt when the attempt's transaction commits (countAfterCommit). */
export const CALLBACK_ATTEMPTS_METRIC = 'callback_attempts_total';

const FINISHED_OUTCOMES: Array<Exclude<CallbackAttemptOutcome, 'in_flight'>> = [
  'succeeded',
  'http_error',
  'redirect',
  'gone',
  'timeout',
  'network_error',
  'refused_destination',
];

/**
 * The dispatcher's series: attempts by outcome (from this process), and, read from its database
 * at scrape time, deliveries waiting and endpoints disabled by a 410 (both small indexed counts).
 */
export function registerCallbackMetrics(metrics: MetricsRegistry, dataSource: DataSource): void {
  const attempts = metrics.counter({
    name: CALLBACK_ATTEMPTS_METRIC,
    help: 'Callback delivery attempts this process finished, by outcome',
    labelNames: ['outcome'],
  });
  // Every outcome from zero, so a failure ratio exists before the first failure.
  for (const outcome of FINISHED_OUTCOMES) attempts.inc({ outcome }, 0);
  metrics.gauge({
    name: 'callback_endpoints_disabled',
    help: 'Merchant callback URLs disabled after answering 410 Gone or failing too long, until re-enabled',
    async collect() {
      const [row]: Array<{ disabled: number }> = await dataSource.query(`SELECT count(*)::int AS disabled FROM callback_disabled_endpoints`);
      this.set(row.disabled);
    },
  });
  metrics.gauge({
    name: 'callback_deliveries_pending',
    help: 'Callbacks waiting for their first or next attempt',
    async collect() {
      // The partial index callback_deliveries_pending_by_origin covers exactly these rows.
      const [row]: Array<{ pending: number }> = await dataSource.query(`SELECT count(*)::int AS pending FROM callback_deliveries WHERE status = 'pending'`);
      this.set(row.pending);
    },
  });
}
