import {
  entriesReadBy,
  sumPostings,
  type AccountBalances,
  type CreditedOrder,
  type DepositAdjustment,
  type HoldReference,
  type HoldStatus,
  type ConversionLeg,
  type LedgerCommand,
  type LedgerEvent,
  type LedgerHold,
  type LedgerState,
  type PayInCreditReason,
  type Posting,
} from '@mp/ledger-domain';
import type { AppendedEvents, LoadedState } from '@mp/shared-command-handling';
import { executeOrDefer, type MessageEnvelope } from '@mp/shared-messaging';
import { countAfterCommit } from '@mp/shared-metrics';
import type { EntityManager } from 'typeorm';
import { LEDGER_POSTINGS_METRIC } from '../ledger-metrics';
import { conversionMemo, findConversionLeg, projectConversion } from './conversion.projection';

export interface LedgerBalancesRow {
  merchant_id: string;
  currency: string;
  /** NUMERIC columns come back from pg as decimal strings. */
  settlement_available: string;
  settlement_frozen: string;
  deposit: string;
  fee_revenue: string;
  clearing: string;
  fx: string;
  has_settlement: boolean;
  has_deposit: boolean;
  stream_version: number;
}

const BALANCE_COLUMNS = `merchant_id, currency, settlement_available::text, settlement_frozen::text, deposit::text, fee_revenue::text, clearing::text, fx::text, has_settlement, has_deposit, stream_version`;

/**
 * Takes the ledger's write lock: the balances row of (merchant, currency), created on first
 * use. Every writer of the ledger passes here first, so commands on one ledger run one after
 * the other, each seeing everything the previous one committed (READ COMMITTED re-reads the
 * locked row and every later statement takes a fresh snapshot). Returns the locked row.
 */
export async function lockLedger(manager: EntityManager, merchantId: string, currency: string): Promise<LedgerBalancesRow> {
  const lock = (): Promise<LedgerBalancesRow[]> =>
    manager.query(`SELECT ${BALANCE_COLUMNS} FROM ledger_balances WHERE merchant_id = $1 AND currency = $2 FOR UPDATE`, [merchantId, currency]);
  // The row exists for every ledger but a merchant's first in a currency: one round trip, the
  // insert only when the lock found nothing.
  const [existing] = await lock();
  if (existing) return existing;
  await manager.query(`INSERT INTO ledger_balances (merchant_id, currency) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [merchantId, currency]);
  const rows = await lock();
  if (rows.length !== 1) throw new Error(`ledger ${merchantId}/${currency} has no balances row after creating it`);
  return rows[0];
}

/**
 * The state a ledger command is decided on, without replaying the stream: the running
 * balances of the locked row, and the one hold, credited order, adjustment or conversion leg
 * the command reads (`entriesReadBy`), each a primary-key lookup. The row's stream version is the version
 * the state reflects; the command core appends after it, so a row that fell behind the event
 * store makes the append or the balance update fail instead of deciding on stale money.
 */
export async function loadLedgerState(manager: EntityManager, merchantId: string, currency: string, command: LedgerCommand): Promise<LoadedState<LedgerState>> {
  const row = await lockLedger(manager, merchantId, currency);
  const keys = entriesReadBy(command);
  const balances: AccountBalances = {
    settlement_available: BigInt(row.settlement_available),
    settlement_frozen: BigInt(row.settlement_frozen),
    deposit: BigInt(row.deposit),
    fee_revenue: BigInt(row.fee_revenue),
    clearing: BigInt(row.clearing),
    fx: BigInt(row.fx),
  };
  const holds = new Map<string, LedgerHold>();
  const creditedOrders = new Map<string, CreditedOrder>();
  const adjustments = new Map<string, DepositAdjustment>();
  const conversions = new Map<string, ConversionLeg>();
  const key = [merchantId, currency];
  if (keys.holdId !== undefined) {
    const found: Array<{ status: HoldStatus; amount_minor: string; fee_minor: string; reference_kind: HoldReference['kind']; reference_id: string }> =
      await manager.query(
        `SELECT status, amount_minor::text, fee_minor::text, reference_kind, reference_id FROM ledger_holds WHERE merchant_id = $1 AND currency = $2 AND hold_id = $3`,
        [...key, keys.holdId],
      );
    for (const hold of found)
      holds.set(keys.holdId, {
        status: hold.status,
        amountMinor: BigInt(hold.amount_minor),
        feeMinor: BigInt(hold.fee_minor),
        reference: { kind: hold.reference_kind, id: hold.reference_id },
      });
  }
  if (keys.creditedOrderId !== undefined) {
    const found: Array<{ amount_minor: string; fee_minor: string; reason: PayInCreditReason }> = await manager.query(
      `SELECT amount_minor::text, fee_minor::text, reason FROM ledger_credited_orders WHERE merchant_id = $1 AND currency = $2 AND order_id = $3`,
      [...key, keys.creditedOrderId],
    );
    for (const credit of found)
      creditedOrders.set(keys.creditedOrderId, { amountMinor: BigInt(credit.amount_minor), feeMinor: BigInt(credit.fee_minor), reason: credit.reason });
  }
  if (keys.adjustmentId !== undefined) {
    const found: Array<{ amount_minor: string; reason: string; operator_id: string }> = await manager.query(
      `SELECT amount_minor::text, reason, operator_id FROM ledger_deposit_adjustments WHERE merchant_id = $1 AND currency = $2 AND adjustment_id = $3`,
      [...key, keys.adjustmentId],
    );
    for (const adjustment of found)
      adjustments.set(keys.adjustmentId, { amountMinor: BigInt(adjustment.amount_minor), reason: adjustment.reason, operatorId: adjustment.operator_id });
  }
  if (keys.conversionId !== undefined) {
    const leg = await findConversionLeg(manager, merchantId, currency, keys.conversionId);
    if (leg) conversions.set(keys.conversionId, leg);
  }
  // Current: the row is locked and every append to the stream updates it in its transaction.
  return { state: { merchantId, currency, balances, holds, creditedOrders, adjustments, conversions }, version: row.stream_version, current: true };
}

/**
 * Brings the projections up to date with events just appended, in the same transaction.
 * Balances move by the postings' net amounts (never overwritten), so the CHECK constraints
 * are a second, independent guard against an overdraft, and the auditor can compare the row
 * with a fold of the event store. Every write here joins the command's one write statement when
 * there is one (executeOrDefer): each touches a different row, and a command moves one hold.
 */
export async function projectLedgerEvents(manager: EntityManager, appended: AppendedEvents<LedgerState, LedgerEvent>): Promise<void> {
  const { merchantId, currency } = appended.stateBefore;
  const { events, envelopes } = appended;
  const postings = events.flatMap((event) => event.data.postings);
  const net = sumPostings(postings);
  const touches = (account: string) => postings.some((posting) => posting.debitAccount === account || posting.creditAccount === account);
  await executeOrDefer(manager, {
    sql: `UPDATE ledger_balances
          SET settlement_available = settlement_available + $3::numeric,
              settlement_frozen = settlement_frozen + $4::numeric,
              deposit = deposit + $5::numeric,
              fee_revenue = fee_revenue + $6::numeric,
              clearing = clearing + $7::numeric,
              fx = fx + $12::numeric,
              has_settlement = has_settlement OR $8,
              has_deposit = has_deposit OR $9,
              stream_version = $10,
              updated_at = now()
        WHERE merchant_id = $1 AND currency = $2 AND stream_version = $11
        RETURNING 1`,
    params: [
      merchantId,
      currency,
      net.settlement_available.toString(),
      net.settlement_frozen.toString(),
      net.deposit.toString(),
      net.fee_revenue.toString(),
      net.clearing.toString(),
      touches('settlement_available') || touches('settlement_frozen'),
      touches('deposit'),
      appended.version,
      appended.versionBefore,
      net.fx.toString(),
    ],
    check: (updated) => {
      if (updated !== 1)
        throw new Error(`ledger ${merchantId}/${currency}: ledger_balances is not at stream version ${appended.versionBefore}; run the ledger auditor`);
    },
  });

  await insertPostings(manager, merchantId, currency, events, envelopes);
  await insertCreditedOrders(manager, merchantId, currency, events, envelopes);
  let deposit = appended.stateBefore.balances.deposit;
  for (const [index, event] of events.entries()) {
    deposit += sumPostings(event.data.postings).deposit;
    await projectHold(manager, merchantId, currency, event);
    await projectConversion(manager, merchantId, currency, event, envelopes[index].id);
    if (event.type === 'DepositAdjusted') {
      const { adjustmentId, amountMinor, reason, operatorId, occurredAt } = event.data;
      await executeOrDefer(manager, {
        sql: `INSERT INTO ledger_deposit_adjustments (merchant_id, currency, adjustment_id, amount_minor, reason, operator_id, deposit_after, event_id, recorded_at)
              VALUES ($1, $2, $3, $4::numeric, $5, $6, $7::numeric, $8, $9)`,
        params: [merchantId, currency, adjustmentId, amountMinor, reason, operatorId, deposit.toString(), envelopes[index].id, occurredAt],
      });
    }
  }
}

/** One multi-row INSERT: each row gives the values of `columns`, in order. */
async function insertRows(manager: EntityManager, table: string, columns: string[], rows: unknown[][]): Promise<void> {
  if (rows.length === 0) return;
  const values: unknown[] = [];
  const tuples = rows.map((row) => {
    const placeholders = row.map((value) => `$${values.push(value)}`);
    return `(${placeholders.join(', ')})`;
  });
  await executeOrDefer(manager, { sql: `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${tuples.join(', ')}`, params: values });
}

async function insertPostings(
  manager: EntityManager,
  merchantId: string,
  currency: string,
  events: LedgerEvent[],
  envelopes: MessageEnvelope[],
): Promise<void> {
  const rows = events.flatMap((event, index) => {
    const memo = event.type === 'DepositAdjusted' ? event.data.reason : (conversionMemo(event) ?? '');
    return event.data.postings.map((posting: Posting) => [
      merchantId,
      currency,
      posting.postingId,
      posting.debitAccount,
      posting.creditAccount,
      posting.amountMinor,
      posting.code,
      posting.reference.kind,
      posting.reference.id,
      envelopes[index].id,
      memo,
      event.data.occurredAt,
    ]);
  });
  // A plain INSERT: a repeated posting id violates the primary key and rolls everything back.
  await insertRows(
    manager,
    'ledger_postings',
    [
      'merchant_id',
      'currency',
      'posting_id',
      'debit_account',
      'credit_account',
      'amount_minor',
      'code',
      'reference_kind',
      'reference_id',
      'event_id',
      'memo',
      'recorded_at',
    ],
    rows,
  );
  for (const event of events) for (const posting of event.data.postings as Posting[]) countAfterCommit(manager, LEDGER_POSTINGS_METRIC, { code: posting.code });
}

/** The idempotency record of each credit; a second credit of an order violates the primary key. */
async function insertCreditedOrders(
  manager: EntityManager,
  merchantId: string,
  currency: string,
  events: LedgerEvent[],
  envelopes: MessageEnvelope[],
): Promise<void> {
  const rows = events.flatMap((event, index) =>
    event.type === 'PayInCredited'
      ? [[merchantId, currency, event.data.orderId, event.data.amountMinor, event.data.feeMinor, event.data.reason, envelopes[index].id, event.data.occurredAt]]
      : [],
  );
  await insertRows(
    manager,
    'ledger_credited_orders',
    ['merchant_id', 'currency', 'order_id', 'amount_minor', 'fee_minor', 'reason', 'event_id', 'recorded_at'],
    rows,
  );
}

async function projectHold(manager: EntityManager, merchantId: string, currency: string, event: LedgerEvent): Promise<void> {
  if (event.type === 'HoldPlaced') {
    const { holdId, amountMinor, feeMinor, reference, occurredAt } = event.data;
    await executeOrDefer(manager, {
      sql: `INSERT INTO ledger_holds (merchant_id, currency, hold_id, amount_minor, fee_minor, status, reference_kind, reference_id, created_at, updated_at)
            VALUES ($1, $2, $3, $4::numeric, $5::numeric, 'pending', $6, $7, $8, $8)`,
      params: [merchantId, currency, holdId, amountMinor, feeMinor, reference.kind, reference.id, occurredAt],
    });
    return;
  }
  if (event.type !== 'HoldPosted' && event.type !== 'HoldVoided') return;
  const status = event.type === 'HoldPosted' ? 'posted' : 'voided';
  await executeOrDefer(manager, {
    sql: `UPDATE ledger_holds SET status = $4, updated_at = $5
           WHERE merchant_id = $1 AND currency = $2 AND hold_id = $3 AND status = 'pending'
          RETURNING 1`,
    params: [merchantId, currency, event.data.holdId, status, event.data.occurredAt],
    check: (updated) => {
      if (updated !== 1) throw new Error(`hold ${event.data.holdId} of ${merchantId}/${currency} was not pending in the projection`);
    },
  });
}

/** Every ledger of the merchant, one row per currency, in currency order. */
export async function findMerchantBalances(manager: EntityManager, merchantId: string): Promise<LedgerBalancesRow[]> {
  return manager.query(`SELECT ${BALANCE_COLUMNS} FROM ledger_balances WHERE merchant_id = $1 AND stream_version > 0 ORDER BY currency`, [merchantId]);
}

export interface DepositAdjustmentRow {
  merchant_id: string;
  currency: string;
  adjustment_id: string;
  amount_minor: string;
  reason: string;
  operator_id: string;
  deposit_after: string;
  event_id: string;
  recorded_at: Date;
}

export async function findDepositAdjustment(
  manager: EntityManager,
  merchantId: string,
  currency: string,
  adjustmentId: string,
): Promise<DepositAdjustmentRow | null> {
  const rows: DepositAdjustmentRow[] = await manager.query(
    `SELECT merchant_id, currency, adjustment_id, amount_minor::text, reason, operator_id, deposit_after::text, event_id, recorded_at
       FROM ledger_deposit_adjustments WHERE merchant_id = $1 AND currency = $2 AND adjustment_id = $3`,
    [merchantId, currency, adjustmentId],
  );
  return rows[0] ?? null;
}
