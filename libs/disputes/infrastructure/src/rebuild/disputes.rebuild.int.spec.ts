/**
 * Goal: the disputes projection rebuilt from its events follows the command path's rule for a
 * review's outcome (docs/operations/projection-rebuild.md): not shown while payments has not
 * applied it, shown once it has, and a reopen at once; a row changed by SQL is found and put
 * back, with the columns no event decides kept. Method: the disputes migrations on a private
 * real PostgreSQL, the command path (handleDisputeCommand, recordOutcomeApplied) as the service
 * runs it, the rebuild as the ops command runs it.
 */
import { randomUUID } from 'node:crypto';
import type { DisputeCommand } from '@mp/disputes-domain';
import { rebuildProjection } from '@mp/shared-command-handling';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { handleDisputeCommand, recordOutcomeApplied } from '../commands/dispute.stream';
import { DISPUTES_MIGRATIONS } from '../disputes.module';
import { DISPUTES_PROJECTION } from './disputes.rebuild';

const MERCHANT = 'mch_dispute_rebuild';
const NOW = new Date();
const ORDER = { direction: 'incoming' as const, createdAt: NOW.toISOString(), agentId: 'agt_1', amountMinor: 100_000n, currency: 'RUB' };

describe('the projection rebuild of disputes, on real Postgres', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('drb', DISPUTES_MIGRATIONS);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  const run = (orderId: string, command: DisputeCommand) =>
    dataSource.transaction((manager) => handleDisputeCommand(manager, MERCHANT, orderId, command, { id: randomUUID(), correlationId: 'rebuild-spec' }));
  const open = (orderId: string, disputeId: string) =>
    run(orderId, {
      type: 'OpenDispute',
      data: { merchantId: MERCHANT, orderId, amountMinor: null, comment: 'never arrived', receipt: null },
      metadata: { now: new Date(), order: ORDER, newDisputeId: disputeId, reviewWindowHours: 72 },
    });
  const review = (orderId: string, decision: 'ACCEPTED' | 'REJECTED') =>
    run(orderId, {
      type: 'ReviewDispute',
      data: { decision, reviewer: { role: 'operator', id: 'opr_1' }, reason: decision === 'REJECTED' ? 'paid' : null },
      metadata: { now: new Date() },
    });
  const rebuild = (switched = false) => rebuildProjection(dataSource, DISPUTES_PROJECTION, { switch: switched });
  const statusOf = async (orderId: string) => (await dataSource.query(`SELECT status FROM disputes WHERE order_id = $1`, [orderId]))[0]?.status;

  it('shows a review only once payments applied it, a reopen at once, and puts back a row changed by SQL', async () => {
    await open('O-1', `dsp_${'1'.repeat(24)}`);
    await review('O-1', 'ACCEPTED');
    await open('O-2', `dsp_${'2'.repeat(24)}`);
    await review('O-2', 'REJECTED');
    await recordOutcomeApplied(dataSource.manager, MERCHANT, 'O-2', 2);
    await open('O-2', `dsp_${'9'.repeat(24)}`);
    // O-1's acceptance is not applied by payments yet: OPEN live, and OPEN rebuilt.
    expect([await statusOf('O-1'), await statusOf('O-2')]).toEqual(['OPEN', 'OPEN']);
    expect((await rebuild()).differences).toEqual([]);

    await recordOutcomeApplied(dataSource.manager, MERCHANT, 'O-1', 2);
    expect(await statusOf('O-1')).toBe('ACCEPTED');
    expect((await rebuild()).differences).toEqual([]);

    await dataSource.query(`UPDATE disputes SET status = 'REJECTED' WHERE order_id = 'O-1'`);
    const [before] = await dataSource.query(`SELECT list_position::text, outcome_published_version FROM disputes WHERE order_id = 'O-1'`);
    const report = await rebuild(true);
    expect(report.differences).toEqual([
      { table: 'disputes', key: { dispute_id: `dsp_${'1'.repeat(24)}` }, kind: 'changed', column: 'status', live: 'REJECTED', rebuilt: 'ACCEPTED' },
    ]);
    expect(await dataSource.query(`SELECT status, list_position::text, outcome_published_version FROM disputes WHERE order_id = 'O-1'`)).toEqual([
      { status: 'ACCEPTED', ...before },
    ]);
    expect((await rebuild()).differences).toEqual([]);
  });
});
