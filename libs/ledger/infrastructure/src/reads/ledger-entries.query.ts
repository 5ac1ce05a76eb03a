import { formatAmountMinor } from '@mp/shared-util-money';
import { fetchNewestFirstPage, PositionCursor, SqlConditions } from '@mp/shared-data-access-postgres';
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

const ENTRIES_CURSOR = new PositionCursor('l');

/**
 * A merchant's postings, newest first, paged by an opaque cursor over the insertion position:
 * entries booked while a client pages appear before its first page, never inside later pages.
 */
export async function listEntries(manager: EntityManager, filter: EntriesFilter): Promise<LedgerEntriesPage> {
  const page = await fetchNewestFirstPage<PostingRow>(manager, {
    select: `SELECT ${COLUMNS} FROM ledger_postings`,
    where: periodConditions(filter),
    positionColumn: 'ledger_postings.position',
    positionOf: (row) => row.position,
    cursor: ENTRIES_CURSOR,
    after: filter.cursor,
    limit: filter.limit,
  });
  return { data: page.rows.map(toEntryView), has_more: page.hasMore, next_cursor: page.nextCursor };
}

/**
 * The postings of a period, oldest first, in batches, for the reconciliation export. The
 * export stops at the last posting that existed when it began, so it never chases new writes.
 */
export async function* postingsOfPeriod(
  manager: EntityManager,
  filter: Omit<EntriesFilter, 'limit' | 'cursor'>,
  batchSize = 1_000,
): AsyncGenerator<PostingRow> {
  const [{ last }]: Array<{ last: string | null }> = await manager.query(`SELECT max(position)::text AS last FROM ledger_postings WHERE merchant_id = $1`, [
    filter.merchantId,
  ]);
  if (last === null) return;
  let after = '0';
  for (;;) {
    const where = periodConditions(filter).add('ledger_postings.position > ?', after).add('ledger_postings.position <= ?', last);
    const limit = where.parameter(batchSize);
    const rows: PostingRow[] = await manager.query(
      `SELECT ${COLUMNS} FROM ledger_postings${where.whereClause()} ORDER BY ledger_postings.position LIMIT ${limit}`,
      where.values,
    );
    yield* rows;
    if (rows.length < batchSize) return;
    after = rows[rows.length - 1].position;
  }
}

const DAY_ENTRIES_CURSOR = new PositionCursor('day');
const DAY_MS = 86_400_000;

export interface DayEntriesFilter {
  merchantId: string;
  currency: string;
  /** `YYYY-MM-DD`: the UTC day [00:00, 24:00). */
  day: string;
  limit: number;
  cursor?: string;
}

/**
 * One merchant's postings of one UTC day in one currency, oldest first, paged by an opaque
 * cursor over the insertion position (the merchant's reconciliation report). The day's rows
 * are found through `ledger_postings_period` (merchant, recorded_at, position) and only then
 * ordered, so a page costs what that day holds, never what the merchant's history holds (an
 * ORDER BY position alone could walk the statement index from the merchant's first posting).
 */
export async function entriesOfDay(manager: EntityManager, filter: DayEntriesFilter): Promise<LedgerEntriesPage> {
  const from = new Date(`${filter.day}T00:00:00.000Z`);
  const after = filter.cursor === undefined ? '0' : DAY_ENTRIES_CURSOR.decode(filter.cursor);
  const rows: PostingRow[] = await manager.query(
    `WITH day AS MATERIALIZED (
       SELECT ${COLUMNS}, position AS sort_position FROM ledger_postings
        WHERE merchant_id = $1 AND recorded_at >= $2 AND recorded_at < $3 AND currency = $4
     )
     SELECT * FROM day WHERE sort_position > $5 ORDER BY sort_position LIMIT $6`,
    [filter.merchantId, from, new Date(from.getTime() + DAY_MS), filter.currency, after, filter.limit + 1],
  );
  const page = rows.slice(0, filter.limit);
  const hasMore = rows.length > filter.limit;
  return { data: page.map(toEntryView), has_more: hasMore, next_cursor: hasMore ? DAY_ENTRIES_CURSOR.encode(page[page.length - 1].position) : null };
}

function periodConditions(filter: Omit<EntriesFilter, 'limit' | 'cursor'>): SqlConditions {
  const where = new SqlConditions().add('merchant_id = ?', filter.merchantId);
  if (filter.currency !== undefined) where.add('currency = ?', filter.currency);
  if (filter.from !== undefined) where.add('recorded_at >= ?', filter.from);
  if (filter.to !== undefined) where.add('recorded_at < ?', filter.to);
  return where;
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
