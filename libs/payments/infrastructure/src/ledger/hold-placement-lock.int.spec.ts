import { assertNoHoldPlacementInProgress, lockHoldPlacement } from '@mp/ledger-client';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import { DomainError } from '@mp/shared-util-errors';
import type { DataSource } from 'typeorm';

/**
 * The orphan-hold sweep must never hear "no such payout" while a create that placed the hold has
 * not committed (a batch of creates can run past its grace period; libs/ledger/client/src/hold-placement-lock.ts):
 * the create's transaction lock answers "being created" to the read the sweep asks, and only
 * until that transaction ends.
 */
describe('hold placement lock, on real PostgreSQL', () => {
  let dataSource: DataSource;
  const holdId = 'payout:mch_1:P-1';

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('holdlock', []);
  });
  afterAll(async () => dataSource?.destroy());

  it('answers "being created" while a create holds the lock, and nothing else once it commits', async () => {
    await expect(assertNoHoldPlacementInProgress(dataSource.manager, holdId, 'payout')).resolves.toBeUndefined();
    const create = dataSource.createQueryRunner();
    await create.startTransaction();
    try {
      await lockHoldPlacement(create.manager, holdId);
      const refused = await assertNoHoldPlacementInProgress(dataSource.manager, holdId, 'payout').catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(DomainError);
      expect((refused as DomainError).code).toBe('SERVICE_UNAVAILABLE');
      // Another payout's read is not held up by this one.
      await expect(assertNoHoldPlacementInProgress(dataSource.manager, 'payout:mch_1:P-2', 'payout')).resolves.toBeUndefined();
      await create.commitTransaction();
    } finally {
      await create.release();
    }
    await expect(assertNoHoldPlacementInProgress(dataSource.manager, holdId, 'payout')).resolves.toBeUndefined();
  });
});
