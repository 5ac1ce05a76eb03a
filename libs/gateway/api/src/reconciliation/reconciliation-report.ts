import type { LedgerEntriesPage, LedgerEntryView } from '@mp/contracts-ledger';
import { csvRecord } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { currencyScale, parseAmountLiteral } from '@mp/shared-util-money';

/**
 * The merchant's reconciliation report (GET /v2/merchant/reconciliation): one CSV row per ledger
 * entry of one UTC day in one currency, oldest first, each with the order it belongs to. Money
 * is in integer minor units throughout, with the currency's exponent on every row, so sums are
 * exact in any tool. The `*_change_minor` columns are the entry's signed effect on each of the
 * merchant's balances (endpoint 9), so each column sums to that balance's change over the day;
 * `fee_minor` is the fee the entry charged (the platform's fee account credited), so it sums to
 * the day's fees. `order_metadata` is the order's metadata as one JSON object (`{}` when it has
 * none; empty when the entry belongs to no order), so a merchant matches rows to its own records.
 */
export const RECONCILIATION_REPORT_COLUMNS = [
  'entry_id',
  'recorded_at',
  'entry_type',
  'debit_account',
  'credit_account',
  'amount_minor',
  'currency',
  'currency_exponent',
  'fee_minor',
  'available_change_minor',
  'frozen_change_minor',
  'deposit_change_minor',
  'reference_kind',
  'reference_id',
  'order_direction',
  'order_status',
  'order_amount_minor',
  'order_fee_minor',
  'order_metadata',
] as const;

/** The order (pay-in, payout or withdrawal) an entry belongs to, as the report shows it. */
export interface ReportOrder {
  direction: 'incoming' | 'outgoing' | 'withdrawal';
  status: string;
  amountMinor: bigint;
  feeMinor: bigint;
  metadata: Record<string, string>;
}

/** Where the report reads: the ledger's day of entries, and the owning services' orders. */
export interface ReconciliationSources {
  entriesOfDay(cursor: string | undefined): Promise<LedgerEntriesPage>;
  /** null when the owning service has no such order (an abandoned payout request's released hold). */
  orderOf(reference: { kind: string; id: string }): Promise<ReportOrder | null>;
}

/** Orders read at once while filling a page: enough to overlap the round trips, few enough not to crowd the services. */
const ORDER_READS_AT_ONCE = 8;

/**
 * The report, record by record. The first page is read by the caller before the answer starts,
 * so a failure there is a normal error answer; later pages stream as they come.
 */
export async function* reconciliationReport(sources: ReconciliationSources, firstPage: LedgerEntriesPage): AsyncGenerator<string> {
  yield csvRecord(RECONCILIATION_REPORT_COLUMNS);
  const orders = new Map<string, ReportOrder | null>();
  for (let page: LedgerEntriesPage | null = firstPage; page; page = page.next_cursor ? await sources.entriesOfDay(page.next_cursor) : null) {
    await readOrders(sources, orders, page.data);
    for (const entry of page.data) yield reportRecord(entry, orders.get(referenceKey(entry.reference)) ?? null);
  }
}

async function readOrders(sources: ReconciliationSources, orders: Map<string, ReportOrder | null>, entries: readonly LedgerEntryView[]): Promise<void> {
  const unread = [
    ...new Map(
      entries.filter((entry) => !orders.has(referenceKey(entry.reference))).map((entry) => [referenceKey(entry.reference), entry.reference]),
    ).entries(),
  ];
  for (let start = 0; start < unread.length; start += ORDER_READS_AT_ONCE) {
    const batch = unread.slice(start, start + ORDER_READS_AT_ONCE);
    const read = await Promise.all(batch.map(([, reference]) => sources.orderOf(reference)));
    batch.forEach(([key], index) => orders.set(key, read[index]));
  }
}

const referenceKey = (reference: { kind: string; id: string }) => `${reference.kind}:${reference.id}`;

/** The entry's signed effect on `account`: credited adds, debited takes away. */
function changeOf(entry: LedgerEntryView, account: string): bigint {
  const amount = BigInt(entry.amount_minor);
  return (entry.credit_account === account ? amount : 0n) - (entry.debit_account === account ? amount : 0n);
}

export function reportRecord(entry: LedgerEntryView, order: ReportOrder | null): string {
  return csvRecord([
    entry.posting_id,
    entry.recorded_at,
    entry.code,
    entry.debit_account,
    entry.credit_account,
    entry.amount_minor,
    entry.currency,
    String(currencyScale(entry.currency)),
    changeOf(entry, 'fee_revenue').toString(),
    changeOf(entry, 'settlement_available').toString(),
    changeOf(entry, 'settlement_frozen').toString(),
    changeOf(entry, 'deposit').toString(),
    entry.reference.kind,
    entry.reference.id,
    order?.direction ?? '',
    order?.status ?? '',
    order?.amountMinor.toString() ?? '',
    order?.feeMinor.toString() ?? '',
    order ? JSON.stringify(order.metadata) : '',
  ]);
}

/** An amount as the services' views write it (a decimal in the currency's scale), in minor units. */
export function minorUnitsOf(decimal: string, currency: string): bigint {
  const parsed = parseAmountLiteral(decimal, currency);
  if (parsed.ok) return parsed.amountMinor;
  if (/^0(\.0+)?$/.test(decimal)) return 0n;
  throw new Error(`invariant: ${decimal} is not an amount in ${currency}`);
}

/** A missing order is a released hold's; anything else (503 included) stops the report. */
export function absentOrNull(error: unknown, notFound: readonly string[]): null {
  if (error instanceof DomainError && notFound.includes(error.code)) return null;
  throw error;
}
