/**
 * Goal: the withdrawals projection (the withdrawal rows, the late network results and their
 * durable counter; docs/operations/projection-rebuild.md) rebuilt from the events equals what
 * the command path wrote, and rows changed or deleted by SQL are found and put back. Method:
 * the withdrawals migrations on a private real PostgreSQL, the command path
 * (handleWithdrawalCommand) as the service runs it, with a ledger that always holds the funds.
 */
import type { HoldView, PlaceHoldRequest } from '@mp/contracts-ledger';
import type { LedgerHolds } from '@mp/ledger-client';
import { rebuildProjection } from '@mp/shared-command-handling';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import { DEFAULT_WITHDRAWAL_ASSETS, type WithdrawalCommand } from '@mp/withdrawals-domain';
import type { DataSource } from 'typeorm';
import { handleWithdrawalCommand } from '../commands/withdrawal.stream';
import { WITHDRAWALS_MIGRATIONS } from '../withdrawals.module';
import { WITHDRAWALS_PROJECTION } from './withdrawals.rebuild';

const MERCHANT = 'mch_withdrawal_rebuild';
const TRON_ADDRESS = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const LEDGER: LedgerHolds = {
  placeHold: async (request: PlaceHoldRequest): Promise<HoldView> => ({
    hold_id: request.hold_id,
    status: 'pending',
    amount_minor: request.amount_minor,
    fee_minor: request.fee_minor,
  }),
};

describe('the projection rebuild of withdrawals, on real Postgres', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('wrb', WITHDRAWALS_MIGRATIONS);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  const run = (orderId: string, command: WithdrawalCommand) =>
    handleWithdrawalCommand(LEDGER, { dataSource }, MERCHANT, orderId, command, { id: `${orderId}-${command.type}`, correlationId: 'rebuild-spec' });
  const request = (orderId: string) =>
    run(orderId, {
      type: 'RequestWithdrawal',
      data: { merchantId: MERCHANT, orderId, currency: 'USDT-TRC20', amountMinor: 15_000_000n, address: TRON_ADDRESS },
      metadata: { now: new Date(), assets: DEFAULT_WITHDRAWAL_ASSETS },
    });
  const complete = (orderId: string, transactionHash: string) =>
    run(orderId, { type: 'CompleteWithdrawal', data: { transactionHash, resolvedBy: 'network' }, metadata: { now: new Date() } });

  it('rebuilds the rows, the late results and their counter, and puts back what SQL changed', async () => {
    await request('W-1');
    await run('W-1', { type: 'StartSendingWithdrawal', metadata: { now: new Date() } });
    await complete('W-1', 'a'.repeat(64));
    // The network answers again, differently, after the withdrawal finished: a late result.
    await complete('W-1', 'b'.repeat(64));
    await request('W-2');
    expect(await dataSource.query(`SELECT count(*)::int AS late FROM withdrawal_late_network_results`)).toEqual([{ late: 1 }]);
    expect((await rebuildProjection(dataSource, WITHDRAWALS_PROJECTION, { switch: false })).differences).toEqual([]);

    await dataSource.query(`UPDATE withdrawals SET status = 'FAILED' WHERE order_id = 'W-2'`);
    await dataSource.query(`DELETE FROM withdrawal_late_network_results`);
    await dataSource.query(`UPDATE withdrawal_metric_counters SET value = 7`);
    const report = await rebuildProjection(dataSource, WITHDRAWALS_PROJECTION, { switch: true });

    expect(report.differences.map((difference) => [difference.table, difference.kind, difference.column ?? null, difference.live ?? null])).toEqual([
      ['withdrawals', 'changed', 'status', 'FAILED'],
      ['withdrawal_late_network_results', 'missing', null, null],
      ['withdrawal_metric_counters', 'changed', 'value', '7'],
    ]);
    expect(await dataSource.query(`SELECT status FROM withdrawals WHERE order_id = 'W-2'`)).toEqual([{ status: 'PENDING' }]);
    expect(await dataSource.query(`SELECT order_id, stream_version, contradicts FROM withdrawal_late_network_results`)).toEqual([
      { order_id: 'W-1', stream_version: 4, contradicts: true },
    ]);
    expect(await dataSource.query(`SELECT value::int FROM withdrawal_metric_counters`)).toEqual([{ value: 1 }]);
    expect((await rebuildProjection(dataSource, WITHDRAWALS_PROJECTION, { switch: false })).differences).toEqual([]);
  });
});
