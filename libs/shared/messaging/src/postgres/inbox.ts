import type { EntityManager } from 'typeorm';

/**
 * Records that `consumer` processed `messageId`, inside the transaction of the effect.
 * Returns false when it already had: the caller then skips the effect, so a redelivered
 * message changes nothing.
 */
export async function claimInboxMessage(manager: EntityManager, consumer: string, messageId: string): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `INSERT INTO inbox (consumer, message_id) VALUES ($1, $2) ON CONFLICT DO NOTHING RETURNING message_id`,
    [consumer, messageId],
  );
  return rows.length === 1;
}
