/**
 * Goal: the ops command `rebuild-projection` (docs/operations/projection-rebuild.md) on the
 * ledger, whose projector moves balances by the postings' net amounts: a balance and a hold
 * changed by SQL are reported (exit 1, one line per difference with key, column, live and
 * rebuilt values) and put right by --switch (exit 0), after which a run finds nothing; the
 * columns the events do not decide are kept; the read models with no events behind them are
 * refused with the reason. Method: the ledger's migrations on a private real PostgreSQL, the
 * books written through the ledger's own command handling, the command as the ops image runs it.
 */
import { randomUUID } from 'node:crypto';
import { handleLedgerCommand, LEDGER_MIGRATIONS } from '@mp/ledger-infrastructure';
import type { LedgerCommand } from '@mp/ledger-domain';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { runRebuildProjection } from './rebuild-projection.command';

const MERCHANT = 'mch_ledger_rebuild';

describe('npm run rebuild -- ledger ledger, on real Postgres', () => {
  let dataSource: DataSource;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('orb', LEDGER_MIGRATIONS);
    env = { LEDGER_MIGRATION_DATABASE_URL: (dataSource.options as { url: string }).url };
    const metadata = { now: new Date('2026-03-01T10:00:00Z') };
    const commands: LedgerCommand[] = [
      { type: 'CreditPayIn', data: { orderId: 'PAY-1', amountMinor: 100_000n, feeMinor: 1_500n, reason: 'payin_succeeded' }, metadata },
      { type: 'PlaceHold', data: { holdId: 'payout:P-1', amountMinor: 20_000n, feeMinor: 300n, reference: { kind: 'payment_order', id: 'P-1' } }, metadata },
      { type: 'PostHold', data: { holdId: 'payout:P-1' }, metadata },
      { type: 'PlaceHold', data: { holdId: 'payout:P-2', amountMinor: 5_000n, feeMinor: 100n, reference: { kind: 'payment_order', id: 'P-2' } }, metadata },
    ];
    for (const command of commands) await handleLedgerCommand({ dataSource }, MERCHANT, 'RUB', command, { id: randomUUID(), correlationId: 'rebuild-spec' });
    await dataSource.query(`UPDATE ledger_holds SET attached_at = '2026-03-01T10:00:01Z' WHERE hold_id = 'payout:P-2'`);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  async function rebuild(...argv: string[]): Promise<{ code: number; out: string[]; err: string[] }> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runRebuildProjection(argv, env, { out: (line) => out.push(...line.split('\n')), err: (line) => err.push(line) });
    return { code, out, err };
  }

  it('finds nothing to change in books written by the command path', async () => {
    const { code, out } = await rebuild('ledger', 'ledger');
    expect(out.at(-1)).toMatch(/^ledger\.ledger: 4 events folded to position \d+ in [\d.]+ s \(\d+ events\/s\); equal to the live projection$/);
    expect(code).toBe(0);
  });

  it('reports a balance and a hold changed by SQL, switches them back, and keeps what the events do not decide', async () => {
    await dataSource.query(`UPDATE ledger_balances SET settlement_available = settlement_available + 777 WHERE merchant_id = $1`, [MERCHANT]);
    await dataSource.query(`UPDATE ledger_holds SET status = 'voided' WHERE hold_id = 'payout:P-2'`);
    const [available] = await dataSource.query(`SELECT settlement_available::text AS value FROM ledger_balances WHERE merchant_id = $1`, [MERCHANT]);

    const reported = await rebuild('ledger', 'ledger');
    expect(reported.code).toBe(1);
    expect(reported.out.filter((line) => line.startsWith('ledger_'))).toEqual([
      `ledger_balances [merchant_id=${MERCHANT} currency=RUB] settlement_available: live "${available.value}", rebuilt "${BigInt(available.value) - 777n}"`,
      `ledger_holds [merchant_id=${MERCHANT} currency=RUB hold_id=payout:P-2] status: live "voided", rebuilt "pending"`,
      'ledger_balances: kept from the live rows (not in the events): updated_at',
      'ledger_postings: kept from the live rows (not in the events): position',
      'ledger_holds: kept from the live rows (not in the events): attached_at, last_requested_at',
    ]);
    expect(reported.out.at(-1)).toContain('2 difference(s), not switched');

    const switched = await rebuild('ledger', 'ledger', '--switch', '--json');
    expect(switched.code).toBe(0);
    expect(JSON.parse(switched.out.join('\n'))).toMatchObject({
      projection: 'ledger.ledger',
      switched: true,
      eventsFolded: 4,
      differences: [
        { kind: 'changed', column: 'settlement_available' },
        { kind: 'changed', column: 'status' },
      ],
    });
    expect(await dataSource.query(`SELECT status, attached_at FROM ledger_holds WHERE hold_id = 'payout:P-2'`)).toEqual([
      { status: 'pending', attached_at: new Date('2026-03-01T10:00:01Z') },
    ]);
    expect((await rebuild('ledger', 'ledger')).code).toBe(0);
  });

  it('names the read models it cannot rebuild, and why', async () => {
    const listed = await rebuild('--list');
    expect(listed.out).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^payments orders\t/),
        expect.stringMatching(/^ledger ledger\t/),
        expect.stringMatching(/^callbacks deliveries\t/),
        expect.stringMatching(/^disputes orders\tnot rebuildable: /),
      ]),
    );
    const refused = await rebuild('disputes', 'orders');
    expect(refused.code).toBe(2);
    expect(refused.err.join('\n')).toMatch(/consumer state, not events of the disputes store/);
  });
});
