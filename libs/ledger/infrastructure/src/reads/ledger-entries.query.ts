import { formatAmountMinor } from '@mp/shared-util-money';
import { DomainError } from '@mp/shared-util-errors';
import type { LedgerEntriesPage, LedgerEntryView } from '@mp/contracts-ledger';
import type { EntityManager } from 'typeorm';

export interface PostingRow {
  merchant_id: string;
  currency: string;
  posting_id: string;
  debit_account: string;
  credit_account: string;
  amount_minor: string;
  code: string;
  reference_kind: string;
  reference_id: string;
  event_id: string;
  memo: string;
  recorded_at: Date;
  position: string;
}

export interface EntriesFilter {
  merchantId: string;
  currency?: string;
  /** Inclusive. */
  from?: Date;
  /** Exclusive. */
  to?: Date;
  limit: number;
  cursor?: string;
}

// `position` is also an output column (as text): ORDER BY names the table's column, which sorts as a number.
const COLUMNS = `merchant_id, currency, posting_id, debit_account, credit_account, amount_minor::text, code, reference_kind, reference_id, event_id, memo, recorded_at, position::text`;

/**
 * A merchant's postings, newest first, paged by an opaque cursor over the insertion position:
 * entries booked while a client pages appear before its first page, never inside later pages.
 */
export async function listEntries(manager: EntityManager, filter: EntriesFilter): Promise<LedgerEntriesPage> {
  const { conditions, values } = periodConditions(filter);
  if (filter.cursor !== undefined) {
    values.push(decodeCursor(filter.cursor));
    conditions.push(`position < $${values.length}`);
  }
  values.push(filter.limit + 1);
  const rows: PostingRow[] = await manager.query(`SELECT ${COLUMNS} FROM ledger_postings WHERE ${conditions.join(' AND ')} ORDER BY ledger_postings.position DESC LIMIT $${values.length}`, values);
  const hasMore = rows.length > filter.limit;
  const page = rows.slice(0, filter.limit);
  return { data: page.map(toEntryView), has_more: hasMore, next_cursor: hasMore ? encodeCursor(page[page.length - 1].position) : null };
}

/**
 * The postings of a period, oldest first, in batches, for the reconciliation export. The
 * export stops at the last posting that existed when it began, so it never chases new writes.
 */
export async function* postingsOfPeriod(manager: EntityManager, filter: Omit<EntriesFilter, 'limit' | 'cursor'>, batchSize = 1_000): AsyncGenerator<PostingRow> {
  const [{ last }]: Array<{ last: string | null }> = await manager.query(`SELECT max(position)::text AS last FROM ledger_postings WHERE merchant_id = $1`, [filter.merchantId]);
  if (last === null) return;
  let after = '0';
  for (;;) {
    const { conditions, values } = periodConditions(filter);
    values.push(after, last, batchSize);
    conditions.push(`position > $${values.length - 2}`, `position <= $${values.length - 1}`);
    const rows: PostingRow[] = await manager.query(`SELECT ${COLUMNS} FROM ledger_postings WHERE ${conditions.join(' AND ')} ORDER BY ledger_postings.position LIMIT $${values.length}`, values);
    yield* rows;
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1].position;
  }
}

function periodConditions(filter: Omit<EntriesFilter, 'limit' | 'cursor'>): { conditions: string[]; values: unknown[] } {
  const values: unknown[] = [filter.merchantId];
  const conditions = ['merchant_id = $1'];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    conditions.push(sql.replace('?', `$${values.length}`));
  };
  if (filter.currency !== undefined) add('currency = ?', filter.currency);
  if (filter.from !== undefined) add('recorded_at >= ?', filter.from);
  if (filter.to !== undefined) add('recorded_at < ?', filter.to);
  return { conditions, values };
}

export function toEntryView(row: PostingRow): LedgerEntryView {
  return {
    posting_id: row.posting_id,
    currency: row.currency,
    code: row.code,
    debit_account: row.debit_account,
    credit_account: row.credit_account,
    amount_minor: row.amount_minor,
    amount: formatAmountMinor(BigInt(row.amount_minor), row.currency),
    reference: { kind: row.reference_kind, id: row.reference_id },
    event_id: row.event_id,
    memo: row.memo,
    recorded_at: new Date(row.recorded_at).toISOString(),
  };
}

function encodeCursor(position: string): string {
  return Buffer.from(`l:${position}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const match = /^l:(\d{1,18})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match) throw new DomainError('VALIDATION_ERROR', 'The cursor is not one this API returned', [{ field: 'cursor', issue: 'is not valid' }]);
  return match[1];
}
