import type { EntityManager } from 'typeorm';
import { DomainError } from '@mp/shared-util-errors';

/**
 * The ledger voids a payout or withdrawal hold as orphaned when its object does not exist a
 * grace period after the hold was last asked for. A create that placed its hold but has not
 * committed yet (a batch of creates in one transaction, each placing its hold over HTTP, can run
 * past the grace under load) must not look like an orphan: the object would then exist with its
 * funds released. So the transaction that places a hold first takes this transaction-level lock
 * on the hold id, held until it commits or rolls back, and the read the ledger's sweep asks
 * answers "being created" (never "not found") while someone holds it. PostgreSQL's advisory
 * locks: across replicas, released by a crash with the connection, no table to clean.
 */
export async function lockHoldPlacement(manager: EntityManager, holdId: string): Promise<void> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [holdId]);
}

/**
 * For a read that found no object: refuses with SERVICE_UNAVAILABLE (the caller asks again
 * later) while a create holding the hold's placement lock is in progress, so a 404 always means
 * the object does not exist and nobody is creating it. One statement: the session lock is taken
 * and given back at once, only to see whether anyone holds it.
 */
export async function assertNoHoldPlacementInProgress(manager: Pick<EntityManager, 'query'>, holdId: string, what: string): Promise<void> {
  const [row]: Array<{ busy: boolean }> = await manager.query(
    `SELECT CASE WHEN pg_try_advisory_lock(hashtextextended($1, 0)) THEN NOT pg_advisory_unlock(hashtextextended($1, 0)) ELSE true END AS busy`,
    [holdId],
  );
  if (row?.busy) throw new DomainError('SERVICE_UNAVAILABLE', `The ${what} is being created just now; read it again in a moment`);
}
