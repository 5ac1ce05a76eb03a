/**
 * Goal: the projection rebuild (docs/operations/projection-rebuild.md) finds every row of the
 * order projection that SQL changed, removed or invented, names its key, column, live and
 * rebuilt values, and puts the rows right with --switch, while orders keep being created; the
 * daily pay-in totals the command path keeps live are what the rebuild computes, and the rebuild
 * fills them from the whole history when they are empty; and an
 * order's state read as of an instant is the state it had then. Method: payments' migrations
 * on a private real PostgreSQL, the command path the service runs (handlePaymentOrderCommand)
 * in a loop as the load, the rebuild as the ops command runs it.
 */
import type { MethodEntry } from '@mp/payments-domain';
import { paymentOrderDecider, toPaymentOrderStreamId, type PaymentOrder, type PaymentOrderCommand } from '@mp/payments-domain';
import { aggregateStreamAsOf, rebuildProjection, type ProjectionDifference } from '@mp/shared-command-handling';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { handlePaymentOrderCommand, paymentOrderEvents } from '../commands/payment-order.stream';
import type { LedgerHolds } from '../ledger/ledger-holds.port';
import { PAYMENTS_MIGRATIONS } from '../payments.module';
import { DAILY_PAYIN_TOTALS_PROJECTION, PAYMENT_ORDERS_PROJECTION } from './payments.rebuild';

const MERCHANT = 'mch_rebuild';
/** Pay-ins place no hold: any ledger call fails the test. */
const NO_LEDGER = new Proxy({}, { get: (_target, name) => () => Promise.reject(new Error(`unexpected ledger call ${String(name)}`)) }) as LedgerHolds;
const CATALOG: MethodEntry[] = [
  {
    method: 'bank_card',
    direction: 'incoming',
    country: 'RU',
    currency: 'RUB',
    feeRateBasisPoints: 150,
    feeFixedMinor: 0n,
    minAmountMinor: 100n,
    maxAmountMinor: 100_000_000n,
    expiryMinutes: 30,
  },
];

describe('the projection rebuild of payments, on real Postgres under load', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('prb', PAYMENTS_MIGRATIONS);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  const run = (orderId: string, command: PaymentOrderCommand) =>
    handlePaymentOrderCommand(NO_LEDGER, { dataSource }, MERCHANT, orderId, command, { id: `${orderId}-${command.type}`, correlationId: 'rebuild-spec' });
  const create = (orderId: string, amountMinor: bigint) =>
    run(orderId, {
      type: 'CreateIncomingPayment',
      data: { merchantId: MERCHANT, orderId, amountMinor, currency: 'RUB', country: 'RU', callbackUrl: 'https://shop.example/cb', method: 'bank_card' },
      metadata: { now: new Date(), payerPageTokenHash: `hash_${orderId}`, methodCatalog: CATALOG },
    });
  const assign = (orderId: string) => run(orderId, { type: 'AssignAgent', data: { agentId: 'agt_1' }, metadata: { now: new Date() } });
  const confirm = (orderId: string) => run(orderId, { type: 'ConfirmIncomingPayment', data: { agentId: 'agt_1' }, metadata: { now: new Date() } });

  /** Creates orders one after the other (every third one paid) until stopped: the live service's writes. */
  function startLoad(prefix: string): { created: () => number; stop: () => Promise<void> } {
    let created = 0;
    let stopped = false;
    const loop = (async () => {
      for (let index = 0; !stopped; index += 1) {
        const orderId = `${prefix}-${index}`;
        await create(orderId, 1_000n + BigInt(index));
        if (index % 3 === 0) {
          await assign(orderId);
          await confirm(orderId);
        }
        created += 1;
      }
    })();
    return {
      created: () => created,
      stop: async () => {
        stopped = true;
        await loop;
      },
    };
  }

  async function until(condition: () => boolean): Promise<void> {
    const deadline = Date.now() + 30_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error('the load made no progress');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('finds a corrupted, a deleted and an invented order row, and restores them with --switch while orders keep being created', async () => {
    const load = startLoad('L');
    try {
      await until(() => load.created() >= 30);
      const [before] = await dataSource.query(`SELECT list_position::text FROM payment_orders WHERE merchant_id = $1 AND order_id = 'L-3'`, [MERCHANT]);
      await dataSource.query(`UPDATE payment_orders SET status = 'FAILED', amount_minor = 1 WHERE merchant_id = $1 AND order_id = 'L-3'`, [MERCHANT]);
      await dataSource.query(`DELETE FROM payment_orders WHERE merchant_id = $1 AND order_id = 'L-4'`, [MERCHANT]);
      await dataSource.query(
        `INSERT INTO payment_orders (merchant_id, order_id, direction, status, amount_minor, fee_minor, currency, country, method, callback_url, expires_at, created_at, updated_at, stream_version)
         SELECT merchant_id, 'PHANTOM', direction, status, amount_minor, fee_minor, currency, country, method, callback_url, expires_at, created_at, updated_at, 1
           FROM payment_orders WHERE merchant_id = $1 AND order_id = 'L-1'`,
        [MERCHANT],
      );
      const createdBefore = load.created();

      const report = await rebuildProjection(dataSource, PAYMENT_ORDERS_PROJECTION, { switch: false, batchSize: 7 });

      const summary = (difference: ProjectionDifference) => [
        difference.kind,
        difference.key['order_id'],
        difference.column ?? null,
        difference.live ?? null,
        difference.rebuilt ?? null,
      ];
      expect(
        report.differences.map((difference) =>
          summary({
            ...difference,
            live: difference.kind === 'changed' ? difference.live : null,
            rebuilt: difference.kind === 'changed' ? difference.rebuilt : null,
          }),
        ),
      ).toEqual([
        ['changed', 'L-3', 'status', 'FAILED', 'SUCCEEDED'],
        ['changed', 'L-3', 'amount_minor', '1', '1003'],
        ['missing', 'L-4', null, null, null],
        ['extra', 'PHANTOM', null, null, null],
      ]);
      expect(report.differences[0].key).toEqual({ merchant_id: MERCHANT, order_id: 'L-3' });
      expect(report.eventsFolded).toBeGreaterThanOrEqual(30);
      expect(report.switched).toBe(false);
      // Only reported: the live rows are as the corruption left them.
      expect((await dataSource.query(`SELECT status FROM payment_orders WHERE merchant_id = $1 AND order_id = 'L-3'`, [MERCHANT]))[0].status).toBe('FAILED');

      const switched = await rebuildProjection(dataSource, PAYMENT_ORDERS_PROJECTION, { switch: true });
      expect(switched.differences.map((difference) => `${difference.kind} ${String(difference.key['order_id'])}`)).toEqual([
        'changed L-3',
        'changed L-3',
        'missing L-4',
        'extra PHANTOM',
      ]);
      const [restored] = await dataSource.query(
        `SELECT status, amount_minor::text, list_position::text FROM payment_orders WHERE merchant_id = $1 AND order_id = 'L-3'`,
        [MERCHANT],
      );
      expect(restored).toEqual({ status: 'SUCCEEDED', amount_minor: '1003', list_position: before.list_position });
      expect(await dataSource.query(`SELECT order_id FROM payment_orders WHERE merchant_id = $1 AND order_id IN ('L-4', 'PHANTOM')`, [MERCHANT])).toEqual([
        { order_id: 'L-4' },
      ]);

      // The load went on through both runs, and what it wrote since agrees with the events.
      await until(() => load.created() >= createdBefore + 10);
      expect((await rebuildProjection(dataSource, PAYMENT_ORDERS_PROJECTION, { switch: false })).differences).toEqual([]);
    } finally {
      await load.stop();
    }
    // No shadow schema is left behind.
    expect(await dataSource.query(`SELECT nspname FROM pg_namespace WHERE nspname LIKE 'rebuild_%'`)).toEqual([]);
  });

  it('keeps the daily pay-in totals live as the rebuild computes them, and fills them again from the whole history', async () => {
    const expected: unknown[] = await dataSource.query(
      `SELECT merchant_id, to_char((updated_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, currency, count(*)::int AS orders, sum(amount_minor)::text AS amount_minor, sum(fee_minor)::text AS fee_minor
         FROM payment_orders WHERE direction = 'incoming' AND status = 'SUCCEEDED' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    );
    const totals = () =>
      dataSource.query(
        `SELECT merchant_id, to_char(day, 'YYYY-MM-DD') AS day, currency, orders, amount_minor::text, fee_minor::text FROM daily_payin_totals ORDER BY 1, 2, 3`,
      );
    expect(expected.length).toBeGreaterThan(0);
    // Written live by the command path while the orders were created and paid: the rebuild finds nothing to change.
    expect(await totals()).toEqual(expected);
    expect((await rebuildProjection(dataSource, DAILY_PAYIN_TOTALS_PROJECTION, { switch: false })).differences).toEqual([]);

    // Emptied (as for a read model added after the fact), the rebuild fills it from history to the same rows.
    await dataSource.query(`DELETE FROM daily_payin_totals`);
    const report = await rebuildProjection(dataSource, DAILY_PAYIN_TOTALS_PROJECTION, { switch: true });

    expect(report.differences.every((difference) => difference.kind === 'missing')).toBe(true);
    expect(report.differences).toHaveLength(expected.length);
    expect(await totals()).toEqual(expected);
    expect((await rebuildProjection(dataSource, DAILY_PAYIN_TOTALS_PROJECTION, { switch: false })).differences).toEqual([]);
  });

  it('reads an order as of any instant: the state recorded after each step, and nothing before it existed', async () => {
    const orderId = 'T-1';
    const recorded: Array<{ at: Date; state: PaymentOrder }> = [];
    const beforeCreation = new Date();
    await new Promise((resolve) => setTimeout(resolve, 5));
    for (const step of [() => create(orderId, 5_000n), () => assign(orderId), () => confirm(orderId)]) {
      const result = await step();
      recorded.push({ at: new Date(), state: result.state });
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const asOf = (at: Date) =>
      dataSource.transaction((manager) => aggregateStreamAsOf(manager, paymentOrderDecider, paymentOrderEvents, toPaymentOrderStreamId(MERCHANT, orderId), at));

    expect((await asOf(beforeCreation)).state).toEqual({ status: 'NotCreated' });
    for (const [index, { at, state }] of recorded.entries()) {
      const read = await asOf(at);
      expect(read.state).toEqual(state);
      expect(read.version).toBe(index + 1);
      expect(read.events.map((event) => event.type)).toEqual(['IncomingPaymentCreated', 'PaymentOrderAgentAssigned', 'PaymentOrderSucceeded']);
    }
  });
});
