import type { AppendedEvents } from '@mp/shared-command-handling';
import type { LateNetworkResultRecorded, Withdrawal, WithdrawalEvent } from '@mp/withdrawals-domain';
import type { EntityManager } from 'typeorm';

/** The counter the withdrawals service exports (withdrawal-metrics.ts), with `outcome` and `contradicts` labels. */
export const LATE_NETWORK_RESULTS_METRIC = 'withdrawal_late_network_results_total';

/** Prometheus label text of a late result (the counter table's `labels`). */
export const lateResultLabels = (event: LateNetworkResultRecorded): string => `outcome="${event.data.outcome}",contradicts="${String(event.data.contradicts)}"`;

/**
 * The dead letter and the counter of each late network result among the appended events, in
 * the command's transaction: the record, the metric and the event commit together or not at
 * all, so none of them can be lost or counted twice.
 */
export async function recordLateNetworkResults(manager: EntityManager, appended: AppendedEvents<Withdrawal, WithdrawalEvent>): Promise<void> {
  const { state } = appended;
  if (state.status === 'NotRequested') return;
  for (const [index, event] of appended.events.entries()) {
    if (event.type !== 'LateNetworkResultRecorded') continue;
    const { data } = event;
    await manager.query(
      `INSERT INTO withdrawal_late_network_results (merchant_id, order_id, stream_version, status_at_arrival, outcome, transaction_hash, failure_reason, contradicts, received_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        state.merchantId,
        state.orderId,
        appended.versionBefore + index + 1,
        data.statusAtArrival,
        data.outcome,
        data.transactionHash,
        data.reason,
        data.contradicts,
        data.occurredAt,
      ],
    );
    await manager.query(
      `INSERT INTO withdrawal_metric_counters (metric, labels, value) VALUES ($1, $2, 1)
       ON CONFLICT (metric, labels) DO UPDATE SET value = withdrawal_metric_counters.value + 1, updated_at = now()`,
      [LATE_NETWORK_RESULTS_METRIC, lateResultLabels(event)],
    );
  }
}
