import { csvRecord } from '@mp/shared-nest-http';
import { formatAmountMinor } from '@mp/shared-util-money';
import type { PostingRow } from './ledger-entries.query';

// The escaping is shared with the gateway's merchant report; its tests live with this export.
export { csvField, csvRecord } from '@mp/shared-nest-http';

/** Columns of the reconciliation export, in order; the header row names them. */
export const RECONCILIATION_COLUMNS = [
  'recorded_at',
  'merchant_id',
  'currency',
  'posting_id',
  'code',
  'debit_account',
  'credit_account',
  'amount_minor',
  'amount',
  'reference_kind',
  'reference_id',
  'event_id',
  'memo',
] as const;

export function reconciliationHeader(): string {
  return csvRecord(RECONCILIATION_COLUMNS);
}

export function reconciliationRecord(row: PostingRow): string {
  return csvRecord([
    new Date(row.recorded_at).toISOString(),
    row.merchant_id,
    row.currency,
    row.posting_id,
    row.code,
    row.debit_account,
    row.credit_account,
    row.amount_minor,
    formatAmountMinor(BigInt(row.amount_minor), row.currency),
    row.reference_kind,
    row.reference_id,
    row.event_id,
    row.memo,
  ]);
}
