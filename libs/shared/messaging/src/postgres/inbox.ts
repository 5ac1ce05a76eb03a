import type { EntityManager } from 'typeorm';
import { executeOrDefer, violatedConstraint } from './one-write-statement';

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

/** Raised by the write that claims a message `consumer` had already claimed: the effect is a repeat, and nothing of it is written. */
export class MessageAlreadyClaimedError extends Error {
  constructor(
    readonly consumer: string,
    readonly messageId: string,
  ) {
    super(`${consumer} has already processed message ${messageId}`);
    this.name = 'MessageAlreadyClaimedError';
  }
}

/**
 * Claims `messageId` for `consumer` with the effect's own writes, after the effect (one
 * statement with them inside `transactionInFewTrips`): no round trip of its own before the
 * effect. A message claimed before fails that statement with MessageAlreadyClaimedError, so a
 * repeat writes nothing; its effect ran for nothing, which only repeats cost.
 */
export async function claimInboxMessageWithWrites(manager: EntityManager, consumer: string, messageId: string): Promise<void> {
  await executeOrDefer(manager, {
    sql: `INSERT INTO inbox (consumer, message_id) VALUES ($1, $2)`,
    params: [consumer, messageId],
    translateError: (error) => (violatedConstraint(error) === 'inbox_pkey' ? new MessageAlreadyClaimedError(consumer, messageId) : undefined),
  });
}

/** Whether `consumer` has processed `messageId`: what a failed repeat is told apart by. */
export async function isInboxMessageClaimed(manager: Pick<EntityManager, 'query'>, consumer: string, messageId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(`SELECT 1 FROM inbox WHERE consumer = $1 AND message_id = $2`, [consumer, messageId]);
  return rows.length > 0;
}
