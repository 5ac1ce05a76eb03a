import { evolve, sumPostings, type LedgerEvent, type LedgerState, type Posting } from '@mp/ledger-domain';
import type { MessageEnvelope } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';
import { conversionMemo, projectConversion } from './conversion.projection';

export interface LedgerBalancesRow {
  merchant_id: string;
  currency: string;
  /** NUMERIC columns come back from pg as decimal strings. */
  settlement_available: string;
  settlement_frozen: string;
  deposit: string;
  has_settlement: boolean;
  has_deposit: boolean;
  stream_version: number;
}

/**
 * Takes the ledger's write lock: the balances row of (merchant, currency), created on first
 * use. Every writer of the ledger passes here first, so commands on one ledger run one after
 * the other, each seeing everything the previous one committed (READ COMMITTED re-reads the
 * locked row and every later statement takes a fresh snapshot). Returns the locked row.
 */
export async function lockLedger(manager: EntityManager, merchantId: string, currency: string): Promise<LedgerBalancesRow> {
  await manager.query(`INSERT INTO ledger_balances (merchant_id, currency) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [merchantId, currency]);
  const rows: LedgerBalancesRow[] = await manager.query(
    `SELECT merchant_id, currency, settlement_available::text, settlement_frozen::text, deposit::text, has_settlement, has_deposit, stream_version
       FROM ledger_balances WHERE merchant_id = $1 AND currency = $2 FOR UPDATE`,
    [merchantId, currency],
  );
  if (rows.length !== 1) throw new Error(`ledger ${merchantId}/${currency} has no balances row after creating it`);
  return rows[0];
}

export interface AppendedLedgerEvents {
  merchantId: string;
  currency: string;
  /** The state before the first event, as the decider saw it. */
  stateBefore: LedgerState;
  versionBefore: number;
  events: LedgerEvent[];
  /** The stored envelope of each event, same order. */
  envelopes: MessageEnvelope[];
}

/**
 * Brings the projections up to date with events just appended, in the same transaction.
 * Balances move by the postings' net amounts (never overwritten), so the CHECK constraints
 * are a second, independent guard against an overdraft, and the auditor can compare the row
 * with a fold of the event store.
 */
export async function projectLedgerEvents(manager: EntityManager, appended: AppendedLedgerEvents): Promise<void> {
  const { merchantId, currency, events, envelopes } = appended;
  const postings = events.flatMap((event) => event.data.postings);
  const net = sumPostings(postings);
  const touches = (account: string) => postings.some((posting) => posting.debitAccount === account || posting.creditAccount === account);
  const [{ updated }]: Array<{ updated: number }> = await manager.query(
    `WITH updated AS (
       UPDATE ledger_balances
          SET settlement_available = settlement_available + $3::numeric,
              settlement_frozen = settlement_frozen + $4::numeric,
              deposit = deposit + $5::numeric,
              has_settlement = has_settlement OR $6,
              has_deposit = has_deposit OR $7,
              stream_version = $8,
              updated_at = now()
        WHERE merchant_id = $1 AND currency = $2 AND stream_version = $9
        RETURNING 1)
     SELECT count(*)::int AS updated FROM updated`,
    [
      merchantId,
      currency,
      net.settlement_available.toString(),
      net.settlement_frozen.toString(),
      net.deposit.toString(),
      touches('settlement_available') || touches('settlement_frozen'),
      touches('deposit'),
      appended.versionBefore + events.length,
      appended.versionBefore,
    ],
  );
  if (updated !== 1) throw new Error(`ledger ${merchantId}/${currency} moved past version ${appended.versionBefore} under its lock`);

  let state = appended.stateBefore;
  for (const [index, event] of events.entries()) {
    const eventId = envelopes[index].id;
    state = evolve(state, event);
    await insertPostings(manager, merchantId, currency, event, eventId);
    await projectHold(manager, merchantId, currency, event);
    await projectConversion(manager, merchantId, event);
    if (event.type === 'DepositAdjusted') {
      const { adjustmentId, amountMinor, reason, operatorId, occurredAt } = event.data;
      await manager.query(
        `INSERT INTO ledger_deposit_adjustments (merchant_id, currency, adjustment_id, amount_minor, reason, operator_id, deposit_after, event_id, recorded_at)
         VALUES ($1, $2, $3, $4::numeric, $5, $6, $7::numeric, $8, $9)`,
        [merchantId, currency, adjustmentId, amountMinor, reason, operatorId, state.balances.deposit.toString(), eventId, occurredAt],
      );
    }
  }
}

async function insertPostings(manager: EntityManager, merchantId: string, currency: string, event: LedgerEvent, eventId: string): Promise<void> {
  const memo = event.type === 'DepositAdjusted' ? event.data.reason : (conversionMemo(event) ?? '');
  const values: unknown[] = [];
  const rows = event.data.postings.map((posting: Posting) => {
    values.push(merchantId, currency, posting.postingId, posting.debitAccount, posting.creditAccount, posting.amountMinor, posting.code, posting.reference.kind, posting.reference.id, eventId, memo, event.data.occurredAt);
    const base = values.length - 12;
    return `(${Array.from({ length: 12 }, (_, offset) => `$${base + offset + 1}`).join(', ')})`;
  });
  // A plain INSERT: a repeated posting id violates the primary key and rolls everything back.
  await manager.query(
    `INSERT INTO ledger_postings (merchant_id, currency, posting_id, debit_account, credit_account, amount_minor, code, reference_kind, reference_id, event_id, memo, recorded_at)
     VALUES ${rows.join(', ')}`,
    values,
  );
}

async function projectHold(manager: EntityManager, merchantId: string, currency: string, event: LedgerEvent): Promise<void> {
  if (event.type === 'HoldPlaced') {
    const { holdId, amountMinor, feeMinor, reference, occurredAt } = event.data;
    await manager.query(
      `INSERT INTO ledger_holds (merchant_id, currency, hold_id, amount_minor, fee_minor, status, reference_kind, reference_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4::numeric, $5::numeric, 'pending', $6, $7, $8, $8)`,
      [merchantId, currency, holdId, amountMinor, feeMinor, reference.kind, reference.id, occurredAt],
    );
    return;
  }
  if (event.type !== 'HoldPosted' && event.type !== 'HoldVoided') return;
  const status = event.type === 'HoldPosted' ? 'posted' : 'voided';
  const [{ updated }]: Array<{ updated: number }> = await manager.query(
    `WITH updated AS (
       UPDATE ledger_holds SET status = $4, updated_at = $5
        WHERE merchant_id = $1 AND currency = $2 AND hold_id = $3 AND status = 'pending'
        RETURNING 1)
     SELECT count(*)::int AS updated FROM updated`,
    [merchantId, currency, event.data.holdId, status, event.data.occurredAt],
  );
  if (updated !== 1) throw new Error(`hold ${event.data.holdId} of ${merchantId}/${currency} was not pending in the projection`);
}

/** Every ledger of the merchant, one row per currency, in currency order. */
export async function findMerchantBalances(manager: EntityManager, merchantId: string): Promise<LedgerBalancesRow[]> {
  return manager.query(
    `SELECT merchant_id, currency, settlement_available::text, settlement_frozen::text, deposit::text, has_settlement, has_deposit, stream_version
       FROM ledger_balances WHERE merchant_id = $1 AND stream_version > 0 ORDER BY currency`,
    [merchantId],
  );
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

export async function findDepositAdjustment(manager: EntityManager, merchantId: string, currency: string, adjustmentId: string): Promise<DepositAdjustmentRow | null> {
  const rows: DepositAdjustmentRow[] = await manager.query(
    `SELECT merchant_id, currency, adjustment_id, amount_minor::text, reason, operator_id, deposit_after::text, event_id, recorded_at
       FROM ledger_deposit_adjustments WHERE merchant_id = $1 AND currency = $2 AND adjustment_id = $3`,
    [merchantId, currency, adjustmentId],
  );
  return rows[0] ?? null;
}
