import type { DataSource, EntityManager, EntitySubscriberInterface, TransactionCommitEvent, TransactionRollbackEvent } from 'typeorm';
import type { Counter } from 'prom-client';
import type { MetricsRegistry } from './metrics-registry';

interface PendingIncrement {
  metric: string;
  labels: Record<string, string>;
  by: number;
}

/** Where pending increments wait on the transaction's query runner (TypeORM's `data` is meant for subscribers). */
const PENDING_KEY = 'committedMetricIncrements';

/**
 * Counts `by` on the counter named `metric` when, and only if, the transaction of `manager`
 * commits: a rolled-back posting or attempt is never counted, a committed one always is. The
 * counter is whatever the app registered under that name; without MetricsModule (a library's
 * own test) the increment is dropped with the transaction.
 */
export function countAfterCommit(manager: EntityManager, metric: string, labels: Record<string, string>, by = 1): void {
  const runner = manager.queryRunner;
  if (!runner || by === 0) return;
  const pending = ((runner.data as Record<string, PendingIncrement[] | undefined>)[PENDING_KEY] ??= []);
  pending.push({ metric, labels, by });
}

/**
 * Applies the increments of committed transactions to the registry's counters. TypeORM also
 * announces a savepoint's release as a commit, so increments wait until the outermost
 * transaction has ended; a savepoint rolled back inside a transaction that then commits keeps
 * its increments (nothing in these services rolls back to a savepoint and carries on).
 */
class CommittedCountsSubscriber implements EntitySubscriberInterface {
  constructor(private readonly metrics: MetricsRegistry) {}

  afterTransactionCommit(event: TransactionCommitEvent): void {
    if (event.queryRunner.isTransactionActive) return;
    for (const increment of takePending(event)) {
      const counter = this.metrics.registry.getSingleMetric(increment.metric) as Counter | undefined;
      counter?.inc(increment.labels, increment.by);
    }
  }

  afterTransactionRollback(event: TransactionRollbackEvent): void {
    if (!event.queryRunner.isTransactionActive) takePending(event);
  }
}

function takePending(event: TransactionCommitEvent | TransactionRollbackEvent): PendingIncrement[] {
  const data = event.queryRunner.data as Record<string, PendingIncrement[] | undefined>;
  const pending = data[PENDING_KEY] ?? [];
  delete data[PENDING_KEY];
  return pending;
}

/** Lets countAfterCommit reach `metrics` for transactions of `dataSource`. */
export function applyCommittedCounts(dataSource: DataSource, metrics: MetricsRegistry): void {
  dataSource.subscribers.push(new CommittedCountsSubscriber(metrics));
}
