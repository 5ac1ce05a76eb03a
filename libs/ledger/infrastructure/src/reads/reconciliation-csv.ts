import { formatAmountMinor } from '@mp/shared-util-money';
import type { PostingRow } from './ledger-entries.query';

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

/**
 * One field of RFC 4180: quoted when it contains a comma, a double quote, CR or LF, with
 * inner quotes doubled. Values are written exactly (no spreadsheet-formula escaping), since
 * a reconciliation must match the books to the character.
 */
export function csvField(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** One record, terminated by CRLF as RFC 4180 says. */
export function csvRecord(values: readonly string[]): string {
  return `${values.map(csvField).join(',')}\r\n`;
}

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
