import type { EntityManager } from 'typeorm';

/**
 * Records that `consumer` processed `messageId`, inside the transaction of the effect.
 * Returns false when it already had: the caller then skips the effect, so a redelivered
 * message changes nothing.
 */
export async function claimInboxMessage(manager: EntityManager, consumer: string, messageId: string): Promise<boolean> {
  return (await claimInboxMessages(manager, consumer, [messageId])).has(messageId);
}

/**
 * `claimInboxMessage` for a batch, in one statement (one round trip however many messages):
 * returns the ids `consumer` had not processed before, each once (a message the relay
 * published twice may sit twice in one batch). The caller runs the effect of each returned
 * id once and skips the rest.
 */
export async function claimInboxMessages(manager: EntityManager, consumer: string, messageIds: readonly string[]): Promise<Set<string>> {
  if (messageIds.length === 0) return new Set();
  const rows: Array<{ message_id: string }> = await manager.query(
    `INSERT INTO inbox (consumer, message_id) SELECT $1, id FROM unnest($2::uuid[]) AS id ON CONFLICT DO NOTHING RETURNING message_id`,
    [consumer, [...new Set(messageIds)]],
  );
  // PostgreSQL answers UUIDs in lower case; envelope ids may come in either.
  const claimed = new Set(rows.map((row) => row.message_id));
  return new Set(messageIds.filter((id) => claimed.has(id.toLowerCase())));
}
