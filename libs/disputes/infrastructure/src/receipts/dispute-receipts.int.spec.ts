/**
 * Goal: a dispute receipt outlives only as current evidence (docs/operations/disputes.md), on a real PostgreSQL:
 * the migration attaches today's evidence and removes what earlier opens left behind; the sweep
 * deletes unclaimed receipts older than the grace period and never an attached one, nor one an
 * open has locked; a download is refused to an agent who is not the order's and logged for the
 * others. Method: the disputes migrations on a private database, rows written as the services
 * write them.
 */
import { randomBytes } from 'node:crypto';
import { createEnvelope, MessagingEventHashChain1700000060380, MessagingSchema1700000000000, appendToStream } from '@mp/shared-messaging';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { DisputeReceiptsLifecycle1700000013000 } from '../persistence/dispute-receipts-lifecycle.migration';
import { DisputesSchema1700000010000 } from '../persistence/disputes-schema.migration';
import {
  attachDisputeReceipt,
  claimDisputeReceipt,
  deleteOrphanReceipts,
  downloadDisputeReceipt,
  listReceiptDownloads,
  storeDisputeReceipt,
} from './dispute-receipts.store';

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('evidence')]);
const runId = `dr${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;

describe('dispute receipts on real Postgres', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    const admin = new Client({ connectionString: process.env['TEST_PG_ADMIN_URL'] });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${runId}"`);
    await admin.end();
    const url = new URL(process.env['TEST_PG_ADMIN_URL'] ?? '');
    url.pathname = `/${runId}`;
    // Everything up to the lifecycle migration first, so its backfill meets rows as they were.
    dataSource = new DataSource({
      type: 'postgres',
      url: url.toString(),
      migrations: [MessagingSchema1700000000000, DisputesSchema1700000010000, MessagingEventHashChain1700000060380],
      extra: { max: 4 },
    });
    await dataSource.initialize();
    await dataSource.runMigrations();
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  const opened = (type: 'DisputeOpened' | 'DisputeReopened', receiptId: string | null, orderAgentId = 'agt_1') =>
    createEnvelope({
      type,
      schemaVersion: 1,
      source: 'disputes',
      subject: 's',
      correlationId: 'c',
      data: { disputeId: 'dsp_000000000000000000000001', orderAgentId, receipt: receiptId ? { receiptId } : null },
    });

  it('the migration keeps the current evidence of each dispute and removes older leftovers', async () => {
    const manager = dataSource.manager;
    const replaced = await storeDisputeReceipt(manager, 'mch_1', 'old.png', PNG);
    const current = await storeDisputeReceipt(manager, 'mch_1', 'new.png', PNG);
    const refused = await storeDisputeReceipt(manager, 'mch_1', 'refused.png', PNG);
    const inFlight = await storeDisputeReceipt(manager, 'mch_1', 'in-flight.png', PNG);
    await manager.query(`UPDATE dispute_receipts SET stored_at = now() - interval '2 hours' WHERE receipt_id <> $1`, [inFlight.receiptId]);
    await appendToStream(manager, 'dispute:mch_1:A-1', 0, [
      opened('DisputeOpened', replaced.receiptId),
      createEnvelope({ type: 'DisputeRejected', schemaVersion: 1, source: 'disputes', subject: 's', correlationId: 'c', data: {} }),
      opened('DisputeReopened', current.receiptId),
    ]);
    await manager.query(
      `INSERT INTO disputes (dispute_id, merchant_id, order_id, status, currency, created_at, updated_at, stream_version) VALUES ('dsp_000000000000000000000001', 'mch_1', 'A-1', 'OPEN', 'RUB', now(), now(), 3)`,
    );

    await new DisputeReceiptsLifecycle1700000013000().up(dataSource.createQueryRunner());

    const rows: Array<{ receipt_id: string; dispute_id: string | null }> = await manager.query(
      `SELECT receipt_id, dispute_id FROM dispute_receipts ORDER BY file_name`,
    );
    expect(rows).toEqual([
      { receipt_id: inFlight.receiptId, dispute_id: null },
      { receipt_id: current.receiptId, dispute_id: 'dsp_000000000000000000000001' },
    ]);
    expect(refused.receiptId).not.toBe(current.receiptId);
  });

  it('sweeps unclaimed receipts past the grace period only, never attached ones nor one an open holds', async () => {
    const manager = dataSource.manager;
    const orphan = await storeDisputeReceipt(manager, 'mch_2', 'orphan.png', PNG);
    const young = await storeDisputeReceipt(manager, 'mch_2', 'young.png', PNG);
    const attached = await storeDisputeReceipt(manager, 'mch_2', 'attached.png', PNG);
    const held = await storeDisputeReceipt(manager, 'mch_2', 'held.png', PNG);
    await attachDisputeReceipt(manager, 'mch_2', attached.receiptId, 'dsp_000000000000000000000002');
    await manager.query(`UPDATE dispute_receipts SET stored_at = now() - interval '2 hours' WHERE merchant_id = 'mch_2' AND receipt_id <> $1`, [
      young.receiptId,
    ]);

    // An open claims `held` and attaches it while the sweep runs: the sweep waits, then leaves it.
    const runner = dataSource.createQueryRunner();
    await runner.startTransaction();
    expect(await claimDisputeReceipt(runner.manager, 'mch_2', held.receiptId)).toMatchObject({ receiptId: held.receiptId });
    const sweep = deleteOrphanReceipts(manager, 3_600_000, 100);
    // A fixed window, not a condition: the sweep gets to the held row's lock before the attach commits.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await attachDisputeReceipt(runner.manager, 'mch_2', held.receiptId, 'dsp_000000000000000000000003');
    await runner.commitTransaction();
    await runner.release();
    expect(await sweep).toBe(1);

    const left: Array<{ receipt_id: string }> = await manager.query(`SELECT receipt_id FROM dispute_receipts WHERE merchant_id = 'mch_2' ORDER BY file_name`);
    expect(left.map((row) => row.receipt_id)).toEqual([attached.receiptId, held.receiptId, young.receiptId]);
    expect(left.map((row) => row.receipt_id)).not.toContain(orphan.receiptId);
  });

  it('gives the receipt to the order’s agent and operators, logging each; another agent is told the dispute does not exist', async () => {
    const manager = dataSource.manager;
    const downloads = await downloadDisputeReceipt(manager, 'mch_1', 'dsp_000000000000000000000001', { role: 'agent', id: 'agt_1' });
    expect(downloads).toEqual({ fileName: 'new.png', contentType: 'image/png', content: PNG });
    await downloadDisputeReceipt(manager, 'mch_1', 'dsp_000000000000000000000001', { role: 'operator', id: 'cred_9' });
    await expect(downloadDisputeReceipt(manager, 'mch_1', 'dsp_000000000000000000000001', { role: 'agent', id: 'agt_2' })).rejects.toMatchObject({
      code: 'DISPUTE_NOT_FOUND',
    });
    await expect(downloadDisputeReceipt(manager, 'mch_9', 'dsp_000000000000000000000001', { role: 'operator', id: 'cred_9' })).rejects.toMatchObject({
      code: 'DISPUTE_NOT_FOUND',
    });
    const log = await listReceiptDownloads(manager, { disputeId: 'dsp_000000000000000000000001', limit: 10 });
    expect(log.map((entry) => [entry.reviewer_role, entry.reviewer_id, entry.order_id, entry.file_name])).toEqual([
      ['operator', 'cred_9', 'A-1', 'new.png'],
      ['agent', 'agt_1', 'A-1', 'new.png'],
    ]);
  });
});
