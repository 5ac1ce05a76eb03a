import { readOutboxBacklog, type MessageBroker } from '@mp/shared-messaging';
import type { DataSource } from 'typeorm';
import { setCounterTotals, type MetricsRegistry } from './metrics-registry';

/**
 * Consumer lag and dead letters, read from the messaging port's in-memory stats at scrape time
 * (no broker round trip). Labels are the logical group, topic and partition: bounded by the
 * topology, never by traffic.
 */
export function registerMessagingMetrics(metrics: MetricsRegistry, broker: MessageBroker): void {
  metrics.gauge({
    name: 'messaging_consumer_lag_messages',
    help: 'Messages a consumer group of this process is behind the end of a partition it owns, as of its last fetched batch',
    labelNames: ['group', 'topic', 'partition'],
    collect() {
      this.reset();
      for (const lag of broker.stats().consumerLag) this.set({ group: lag.groupId, topic: lag.topic, partition: String(lag.partition) }, lag.messages);
    },
  });
  metrics.gauge({
    name: 'messaging_consumer_retry_attempts',
    help: 'Failed attempts so far of the message a partition waits on, paused for its next attempt (a database or network outage, or an error not yet dead-lettered); absent when nothing waits',
    labelNames: ['group', 'topic', 'partition'],
    collect() {
      this.reset();
      for (const waiting of broker.stats().retrying)
        this.set({ group: waiting.groupId, topic: waiting.topic, partition: String(waiting.partition) }, waiting.attempts);
    },
  });
  metrics.counter({
    name: 'messaging_dead_letters_total',
    help: 'Messages this process gave up on and sent to the dead-letter topic of their source topic',
    labelNames: ['topic'],
    collect() {
      setCounterTotals(
        this,
        broker.stats().deadLettered.map((entry) => ({ labels: { topic: entry.topic }, value: entry.messages })),
      );
    },
  });
  metrics.counter({
    name: 'messaging_consumed_messages_total',
    help: 'Messages a consumer group of this process took from a topic: handled, or skipped as a type it has no work for (skipped_undecoded on the type header alone, skipped_decoded after parsing a message without one)',
    labelNames: ['group', 'topic', 'outcome'],
    collect() {
      setCounterTotals(
        this,
        broker.stats().consumed.flatMap(({ groupId, topic, handled, skippedUndecoded, skippedDecoded }) => [
          { labels: { group: groupId, topic, outcome: 'handled' }, value: handled },
          { labels: { group: groupId, topic, outcome: 'skipped_undecoded' }, value: skippedUndecoded },
          { labels: { group: groupId, topic, outcome: 'skipped_decoded' }, value: skippedDecoded },
        ]),
      );
    },
  });
}

/** Outbox depth and the age of its oldest unpublished row, read from the service's database at scrape time. */
export function registerOutboxMetrics(metrics: MetricsRegistry, dataSource: DataSource): void {
  // One query serves both gauges: whichever is collected first reads, the other reuses it.
  let pending: Promise<{ unpublished: number; oldestAgeSeconds: number }> | null = null;
  const backlog = () => {
    pending ??= readOutboxBacklog(dataSource).finally(() => setImmediate(() => (pending = null)));
    return pending;
  };
  metrics.gauge({
    name: 'outbox_unpublished_messages',
    help: 'Outbox rows not yet published to Kafka (counted up to 100000)',
    async collect() {
      this.set((await backlog()).unpublished);
    },
  });
  metrics.gauge({
    name: 'outbox_oldest_unpublished_age_seconds',
    help: 'Age of the oldest outbox row not yet published to Kafka; 0 when the outbox is drained',
    async collect() {
      this.set((await backlog()).oldestAgeSeconds);
    },
  });
}
