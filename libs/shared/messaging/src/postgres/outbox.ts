import type { EntityManager } from 'typeorm';
import type { OutgoingMessage } from '../messaging-port';

/** The channel the relay listens on, so it publishes right after a commit instead of on its next poll. */
export const OUTBOX_NOTIFY_CHANNEL = 'outbox_enqueued';

/**
 * Writes messages to the outbox inside the caller's transaction: they reach the broker if and
 * only if the state change they describe commits.
 */
export async function enqueueOutbox(manager: EntityManager, messages: OutgoingMessage[]): Promise<void> {
  if (messages.length === 0) return;
  const values: unknown[] = [];
  const rows = messages.map((message, index) => {
    values.push(message.envelope.id, message.topic, message.key, JSON.stringify(message.envelope));
    const base = index * 4;
    return `($${base + 1}, $${base + 2}, $${base + 3}, $${base + 4})`;
  });
  values.push(OUTBOX_NOTIFY_CHANNEL);
  // One statement, one round trip: the insert and the relay's wake-up (delivered at commit).
  await manager.query(
    `WITH enqueued AS (INSERT INTO outbox (message_id, topic, message_key, envelope) VALUES ${rows.join(', ')} RETURNING 1)
     SELECT pg_notify($${values.length}, '') FROM (SELECT count(*) FROM enqueued) AS done`,
    values,
  );
}
