/**
 * Goal: a merchant's balances at the end of any UTC day, summed from the postings
 * (balancesAsOf, endOfDayBalances; docs/operations/as-of-reads.md), are the running balances the
 * ledger held at that moment: the states recorded after each day's commands during a run, and
 * each day opens where the previous one closed. Method: the ledger's migrations on a private
 * real PostgreSQL, books written over three days through the ledger's command handling, the
 * balances row read after each day.
 */
import { randomUUID } from 'node:crypto';
import type { LedgerCommand } from '@mp/ledger-domain';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { handleLedgerCommand } from '../commands/ledger.stream';
import { LEDGER_MIGRATIONS } from '../ledger.module';
import { endOfDayBalances } from './balances-as-of';

const MERCHANT = 'mch_as_of';
const ACCOUNTS = ['settlement_available', 'settlement_frozen', 'deposit', 'fee_revenue', 'clearing', 'fx'] as const;

describe('balances at the end of a UTC day, from the postings, on real Postgres', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('bao', LEDGER_MIGRATIONS);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('equal the running balances recorded at the end of each day, and each day opens at the previous close', async () => {
    const days: Array<{ date: string; commands: Array<Omit<LedgerCommand, 'metadata'>> }> = [
      {
        date: '2026-03-01',
        commands: [
          { type: 'CreditPayIn', data: { orderId: 'PAY-1', amountMinor: 100_000n, feeMinor: 1_500n, reason: 'payin_succeeded' } } as Omit<
            LedgerCommand,
            'metadata'
          >,
        ],
      },
      {
        date: '2026-03-02',
        commands: [
          { type: 'PlaceHold', data: { holdId: 'payout:P-1', amountMinor: 20_000n, feeMinor: 300n, reference: { kind: 'payment_order', id: 'P-1' } } },
          { type: 'CreditPayIn', data: { orderId: 'PAY-2', amountMinor: 5_000n, feeMinor: 75n, reason: 'payin_succeeded' } },
        ] as Array<Omit<LedgerCommand, 'metadata'>>,
      },
      { date: '2026-03-04', commands: [{ type: 'PostHold', data: { holdId: 'payout:P-1' } } as Omit<LedgerCommand, 'metadata'>] },
    ];
    const recorded = new Map<string, Record<string, string>>();
    for (const day of days) {
      for (const [index, command] of day.commands.entries()) {
        const now = new Date(`${day.date}T${String(9 + index).padStart(2, '0')}:00:00Z`);
        await handleLedgerCommand({ dataSource }, MERCHANT, 'RUB', { ...command, metadata: { now } } as LedgerCommand, {
          id: randomUUID(),
          correlationId: 'as-of-spec',
        });
      }
      const [row] = await dataSource.query(
        `SELECT ${ACCOUNTS.map((account) => `${account}::text`).join(', ')} FROM ledger_balances WHERE merchant_id = $1 AND currency = 'RUB'`,
        [MERCHANT],
      );
      recorded.set(day.date, row);
    }
    const zero = Object.fromEntries(ACCOUNTS.map((account) => [account, '0']));

    expect(await endOfDayBalances(dataSource.manager, MERCHANT, '2026-02-28')).toEqual({ merchant_id: MERCHANT, date: '2026-02-28', currencies: [] });
    expect(await endOfDayBalances(dataSource.manager, MERCHANT, '2026-03-01')).toEqual({
      merchant_id: MERCHANT,
      date: '2026-03-01',
      currencies: [{ currency: 'RUB', opening: zero, closing: recorded.get('2026-03-01') }],
    });
    expect((await endOfDayBalances(dataSource.manager, MERCHANT, '2026-03-02')).currencies).toEqual([
      { currency: 'RUB', opening: recorded.get('2026-03-01'), closing: recorded.get('2026-03-02') },
    ]);
    // A day without entries opens and closes where the last one closed.
    expect((await endOfDayBalances(dataSource.manager, MERCHANT, '2026-03-03')).currencies).toEqual([
      { currency: 'RUB', opening: recorded.get('2026-03-02'), closing: recorded.get('2026-03-02') },
    ]);
    expect((await endOfDayBalances(dataSource.manager, MERCHANT, '2026-03-04')).currencies).toEqual([
      { currency: 'RUB', opening: recorded.get('2026-03-02'), closing: recorded.get('2026-03-04') },
    ]);
    expect(recorded.get('2026-03-04')).not.toEqual(recorded.get('2026-03-02'));
  });
});
