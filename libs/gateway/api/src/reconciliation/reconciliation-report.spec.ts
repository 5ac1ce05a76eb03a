import type { LedgerEntriesPage, LedgerEntryView } from '@mp/contracts-ledger';
import { minorUnitsOf, RECONCILIATION_REPORT_COLUMNS, reconciliationReport, type ReconciliationSources } from './reconciliation-report';

const entry = (overrides: Partial<LedgerEntryView>): LedgerEntryView => ({
  posting_id: 'payin:A-1:settled',
  currency: 'RUB',
  code: 'PAYIN_SETTLED',
  debit_account: 'clearing',
  credit_account: 'settlement_available',
  amount_minor: '97954',
  amount: '979.54',
  reference: { kind: 'payment_order', id: 'A-1' },
  event_id: 'e-1',
  memo: '',
  recorded_at: '2026-01-31T10:00:00.000Z',
  ...overrides,
});

async function report(pages: LedgerEntriesPage[], orderOf: ReconciliationSources['orderOf']): Promise<string[][]> {
  const sources: ReconciliationSources = { entriesOfDay: async (cursor) => pages[Number(cursor)], orderOf };
  let text = '';
  for await (const record of reconciliationReport(sources, pages[0])) text += record;
  return text
    .trimEnd()
    .split('\r\n')
    .map((line) => line.split(','));
}

describe('the merchant reconciliation report', () => {
  it('gives each entry its signed effect on each balance, the fee it charged, and its order, across pages', async () => {
    const pages: LedgerEntriesPage[] = [
      {
        data: [entry({}), entry({ posting_id: 'payin:A-1:fee', code: 'PAYIN_FEE', credit_account: 'fee_revenue', amount_minor: '2101' })],
        has_more: true,
        next_cursor: '1',
      },
      {
        data: [
          entry({
            posting_id: 'hold:h:placed',
            code: 'HOLD_PLACED',
            debit_account: 'settlement_available',
            credit_account: 'settlement_frozen',
            amount_minor: '10300',
            reference: { kind: 'payment_order', id: 'P-1' },
          }),
        ],
        has_more: false,
        next_cursor: null,
      },
    ];
    const reads: string[] = [];
    const rows = await report(pages, async (reference) => {
      reads.push(reference.id);
      return reference.id === 'A-1'
        ? { direction: 'incoming', status: 'SUCCEEDED', amountMinor: 100_055n, feeMinor: 2_101n, metadata: { cart_id: 'C-1' } }
        : null;
    });
    expect(rows[0]).toEqual([...RECONCILIATION_REPORT_COLUMNS]);
    const column = (name: string) => rows.slice(1).map((row) => row[RECONCILIATION_REPORT_COLUMNS.indexOf(name as never)]);
    expect(column('available_change_minor')).toEqual(['97954', '0', '-10300']);
    expect(column('frozen_change_minor')).toEqual(['0', '0', '10300']);
    expect(column('fee_minor')).toEqual(['0', '2101', '0']);
    expect(column('currency_exponent')).toEqual(['2', '2', '2']);
    expect(column('order_fee_minor')).toEqual(['2101', '2101', '']);
    // The order's metadata as one JSON column, quoted as CSV quotes a field with quotes in it; empty without an order.
    expect(column('order_metadata')).toEqual(['"{""cart_id"":""C-1""}"', '"{""cart_id"":""C-1""}"', '']);
    // Each order is read once, however many entries it has.
    expect(reads).toEqual(['A-1', 'P-1']);
  });

  it('quotes an order id that holds a comma', async () => {
    const [, row] = await report(
      [{ data: [entry({ reference: { kind: 'payment_order', id: 'A,1' } })], has_more: false, next_cursor: null }],
      async () => null,
    );
    expect(row.join(',')).toContain('payment_order,"A,1"');
  });

  it("reads the services' decimal amounts as minor units, zero fees included", () => {
    expect([minorUnitsOf('1000.55', 'RUB'), minorUnitsOf('0.00', 'RUB'), minorUnitsOf('12', 'JPY'), minorUnitsOf('1.500000', 'USDT')]).toEqual([
      100_055n,
      0n,
      12n,
      1_500_000n,
    ]);
  });
});
