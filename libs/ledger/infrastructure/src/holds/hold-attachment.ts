import type { EntityManager } from 'typeorm';

/**
 * Bookkeeping around payout holds that are placed before their order exists (docs/api:
 * no hold, no payout). The payments service places the hold, then commits the order; if it
 * dies in between and the command is never completed, the hold would freeze the merchant's
 * money for ever. These rows let the orphan-hold sweeper find such holds. None of this moves
 * money: only the ledger's events do.
 */

/** The order behind the hold exists: never a candidate for the orphan sweep again. */
export async function markHoldAttached(manager: EntityManager, merchantId: string, currency: string, holdId: string): Promise<void> {
  await markHoldsAttached(manager, [{ merchantId, currency, holdId }]);
}

/** `markHoldAttached` for several holds in one statement (a batch of creation events). */
export async function markHoldsAttached(manager: EntityManager, holds: ReadonlyArray<{ merchantId: string; currency: string; holdId: string }>): Promise<void> {
  if (holds.length === 0) return;
  await manager.query(
    `UPDATE ledger_holds SET attached_at = COALESCE(attached_at, now())
       FROM unnest($1::text[], $2::text[], $3::text[]) AS attached (merchant_id, currency, hold_id)
      WHERE ledger_holds.merchant_id = attached.merchant_id AND ledger_holds.currency = attached.currency AND ledger_holds.hold_id = attached.hold_id`,
    [holds.map((hold) => hold.merchantId), holds.map((hold) => hold.currency), holds.map((hold) => hold.holdId)],
  );
}

/** A service asked for the hold again (a retry): its grace period starts over. */
export async function touchHoldRequest(manager: EntityManager, merchantId: string, currency: string, holdId: string): Promise<void> {
  await manager.query(`UPDATE ledger_holds SET last_requested_at = now() WHERE merchant_id = $1 AND currency = $2 AND hold_id = $3 AND status = 'pending'`, [
    merchantId,
    currency,
    holdId,
  ]);
}

export interface UnattachedHold {
  merchant_id: string;
  currency: string;
  hold_id: string;
  /** Which service to ask whether the hold's object exists. */
  reference_kind: 'payment_order' | 'withdrawal';
  reference_id: string;
}

/**
 * A pending payout or withdrawal hold nobody vouched for and nobody asked for since the grace
 * (`$graceParam`, ms) began. Withdrawals place their hold before they exist exactly as payouts
 * do, so the same sweep releases theirs (asking the withdrawals service instead).
 */
function unattachedPastGrace(graceParam: number): string {
  return `status = 'pending' AND attached_at IS NULL AND reference_kind IN ('payment_order', 'withdrawal')
          AND last_requested_at < now() - make_interval(secs => $${graceParam}::double precision / 1000)`;
}

/** Pending payout holds whose order the ledger has not seen, last asked for before the grace period. */
export async function findUnattachedPayoutHolds(manager: EntityManager, graceMs: number, limit: number): Promise<UnattachedHold[]> {
  return manager.query(
    `SELECT merchant_id, currency, hold_id, reference_kind, reference_id FROM ledger_holds WHERE ${unattachedPastGrace(1)} ORDER BY last_requested_at LIMIT $2`,
    [graceMs, limit],
  );
}

/** Re-reads one hold under the ledger's lock: still pending, unattached and past its grace? */
export async function isStillUnattached(manager: EntityManager, hold: UnattachedHold, graceMs: number): Promise<boolean> {
  const rows: unknown[] = await manager.query(
    `SELECT 1 FROM ledger_holds WHERE merchant_id = $1 AND currency = $2 AND hold_id = $3 AND ${unattachedPastGrace(4)}`,
    [hold.merchant_id, hold.currency, hold.hold_id, graceMs],
  );
  return rows.length === 1;
}
