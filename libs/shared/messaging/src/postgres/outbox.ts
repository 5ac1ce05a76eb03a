import type { EntityManager } from 'typeorm';
import type { OutgoingMessage } from '../messaging-port';
import { executeOrDefer } from './one-write-statement';

/** The channel the relay listens on, so it publishes right after a commit instead of on its next poll. */
export const OUTBOX_NOTIFY_CHANNEL = 'outbox_enqueued';

/**
 * Writes messages to the outbox inside the caller's transaction: they reach the broker if and
 * only if the state change they describe commits.
 */
export async function enqueueOutbox(manager: EntityManager, messages: OutgoingMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const collected = collectedOutboxOf(manager);
  if (collected) {
    collected.push(...messages);
    return;
  }
  await insertIntoOutbox(manager, messages);
}

/** Where `withOneOutboxWrite` keeps a transaction's messages: its query runner's own scratch space. */
const COLLECTED_OUTBOX = 'mp.collectedOutbox';

function collectedOutboxOf(manager: EntityManager): OutgoingMessage[] | undefined {
  return manager.queryRunner?.data?.[COLLECTED_OUTBOX] as OutgoingMessage[] | undefined;
}

/**
 * Runs `work` in the transaction of `manager` with every `enqueueOutbox` of it collected, then
 * writes them all in one statement, in the order they were enqueued (so the relay publishes
 * them in that order, as if each had been written at once). A batch of commands or events then
 * costs one outbox round trip, not one per hook that enqueues. If `work` throws nothing is
 * written, and the transaction rolls back anyway.
 */
export async function withOneOutboxWrite<T>(manager: EntityManager, work: () => Promise<T>): Promise<T> {
  const data = manager.queryRunner?.data as Record<string, unknown> | undefined;
  if (!data) throw new Error('withOneOutboxWrite needs the manager of a transaction');
  if (data[COLLECTED_OUTBOX]) return work();
  const collected: OutgoingMessage[] = [];
  data[COLLECTED_OUTBOX] = collected;
  try {
    const result = await work();
    delete data[COLLECTED_OUTBOX];
    if (collected.length > 0) await insertIntoOutbox(manager, collected);
    return result;
  } finally {
    delete data[COLLECTED_OUTBOX];
  }
}

async function insertIntoOutbox(manager: EntityManager, messages: OutgoingMessage[]): Promise<void> {
  const values: unknown[] = [OUTBOX_NOTIFY_CHANNEL];
  const rows = messages.map((message, index) => {
    values.push(message.envelope.id, message.topic, message.key, JSON.stringify(message.envelope));
    const base = 1 + index * 4;
    return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4})`;
  });
  // One statement, one round trip (or a part of the command's one statement): the insert and
  // the relay's wake-up, delivered at commit (repeats of one notification in a transaction are one).
  await executeOrDefer(manager, {
    sql: `INSERT INTO outbox (message_id, topic, message_key, envelope) VALUES ${rows.join(', ')} RETURNING (SELECT 1 FROM pg_notify($1, '')) AS notified`,
    params: values,
  });
}

/** What the relay has not published yet: how many rows (counted up to a cap) and the oldest one's age. */
export interface OutboxBacklog {
  /** Unpublished rows, counted up to OUTBOX_BACKLOG_COUNT_MAX: a huge backlog is reported as the cap. */
  unpublished: number;
  /** Seconds since the oldest unpublished row was written; 0 when there is none. */
  oldestAgeSeconds: number;
}

/** Bounds a scrape's cost when the relay is far behind; alerting needs "a lot", not the exact figure. */
export const OUTBOX_BACKLOG_COUNT_MAX = 100_000;

/**
 * The outbox backlog, for metrics. The relay deletes what it published, so every row is
 * unpublished but its last batch, which its next pass deletes (the next commit's or the poll's,
 * within pollIntervalMs); both reads walk the primary key, so a scrape costs little while the
 * relay keeps up.
 */
export async function readOutboxBacklog(manager: Pick<EntityManager, 'query'>): Promise<OutboxBacklog> {
  const [row]: Array<{ unpublished: string; oldest_age_seconds: string | null }> = await manager.query(
    `SELECT (SELECT count(*) FROM (SELECT 1 FROM outbox LIMIT ${OUTBOX_BACKLOG_COUNT_MAX}) AS capped) AS unpublished,
            (SELECT extract(epoch FROM now() - created_at) FROM outbox ORDER BY position LIMIT 1) AS oldest_age_seconds`,
  );
  return { unpublished: Number(row.unpublished), oldestAgeSeconds: Math.max(0, Number(row.oldest_age_seconds ?? 0)) };
}
