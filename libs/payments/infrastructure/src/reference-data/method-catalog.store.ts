import { DEFAULT_METHOD_CATALOG, type MethodEntry } from '@mp/payments-domain';
import type { StoredMethodEntry } from '@mp/contracts-payments';
import type { EntityManager } from 'typeorm';

export function toStoredEntry(entry: MethodEntry): StoredMethodEntry {
  return {
    method: entry.method,
    direction: entry.direction,
    country: entry.country,
    currency: entry.currency,
    fee_rate_basis_points: entry.feeRateBasisPoints,
    fee_fixed_minor: entry.feeFixedMinor.toString(),
    min_amount_minor: entry.minAmountMinor.toString(),
    max_amount_minor: entry.maxAmountMinor.toString(),
    expiry_minutes: entry.expiryMinutes,
  };
}

export function fromStoredEntry(entry: StoredMethodEntry): MethodEntry {
  return {
    method: entry.method,
    direction: entry.direction,
    country: entry.country,
    currency: entry.currency,
    feeRateBasisPoints: entry.fee_rate_basis_points,
    feeFixedMinor: BigInt(entry.fee_fixed_minor),
    minAmountMinor: BigInt(entry.min_amount_minor),
    maxAmountMinor: BigInt(entry.max_amount_minor),
    expiryMinutes: entry.expiry_minutes,
  };
}

/** The merchant's configured methods, or the default catalog until an operator configures them. */
export async function loadMethodCatalog(manager: EntityManager, merchantId: string): Promise<readonly MethodEntry[]> {
  const rows: Array<{ entries: StoredMethodEntry[] }> = await manager.query(`SELECT entries FROM merchant_method_configs WHERE merchant_id = $1`, [merchantId]);
  return rows[0] ? rows[0].entries.map(fromStoredEntry) : DEFAULT_METHOD_CATALOG;
}

export async function saveMethodCatalog(manager: EntityManager, merchantId: string, entries: MethodEntry[]): Promise<void> {
  await manager.query(
    `INSERT INTO merchant_method_configs (merchant_id, entries) VALUES ($1, $2::jsonb)
     ON CONFLICT (merchant_id) DO UPDATE SET entries = EXCLUDED.entries, updated_at = now()`,
    [merchantId, JSON.stringify(entries.map(toStoredEntry))],
  );
}
