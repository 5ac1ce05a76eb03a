/**
 * Goal: the ledger's internal HTTP API behaves as its contract (libs/contracts/ledger) says:
 * holds are idempotent by id and refuse malformed or conflicting requests; balances list one
 * entry per currency held, in the currency's scale; the deposit moves only by an operator's
 * adjustment, with a reason, idempotently and never below zero; the statement pages newest
 * first with each entry's order, withdrawal or adjustment; the reconciliation export is RFC
 * 4180 CSV of a period. Method: the real ledger service on real PostgreSQL and Kafka.
 */
import { LedgerTestService, newMerchantId, paymentOrderEvent } from '@mp/ledger-testing';
import { eventually } from '@mp/shared-testing';

/** A small RFC 4180 reader, to check the export round-trips. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quoted) {
      if (char === '"' && text[index + 1] === '"') {
        field += '"';
        index += 1;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[index + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      index += 1;
    } else field += char;
  }
  if (field !== '' || record.length > 0) throw new Error('the CSV does not end with CRLF');
  return records;
}

describe('ledger internal HTTP API', () => {
  let ledger: LedgerTestService;

  beforeAll(async () => {
    ledger = await LedgerTestService.start();
  });
  afterAll(async () => ledger?.stop());

  const hold = (merchantId: string, overrides: Record<string, unknown> = {}) => ({
    hold_id: `payout:${merchantId}:P-1`,
    merchant_id: merchantId,
    currency: 'RUB',
    amount_minor: '1000',
    fee_minor: '10',
    reference: { kind: 'payment_order', id: 'P-1' },
    ...overrides,
  });

  it('answers health and an empty ledger', async () => {
    // Healthy once the fresh broker has elected its partitions' leaders (a 503 until then).
    await eventually(
      async () => (await ledger.request('GET', '/health')).status,
      (status) => status === 200,
      'the ledger healthy',
    );
    expect(await ledger.balances(newMerchantId('nobody'))).toEqual({ settlement: [], deposit: [] });
  });

  it('refuses malformed hold requests with VALIDATION_ERROR and every problem listed', async () => {
    const merchantId = newMerchantId('malformed');
    const cases: Array<[unknown, string]> = [
      [hold(merchantId, { amount_minor: '0' }), 'amount_minor'],
      [hold(merchantId, { amount_minor: '-1' }), 'amount_minor'],
      [hold(merchantId, { amount_minor: '15.00' }), 'amount_minor'],
      [hold(merchantId, { amount_minor: 1500 }), 'amount_minor'],
      [hold(merchantId, { amount_minor: '0100' }), 'amount_minor'],
      [hold(merchantId, { amount_minor: '1' + '0'.repeat(40) }), 'amount_minor'],
      [hold(merchantId, { fee_minor: '-5' }), 'fee_minor'],
      [hold(merchantId, { currency: 'XXX' }), 'currency'],
      [hold(merchantId, { hold_id: '' }), 'hold_id'],
      [hold(merchantId, { merchant_id: 42 }), 'merchant_id'],
      [hold(merchantId, { reference: { kind: 'dispute', id: 'D-1' } }), 'reference.kind'],
      [hold(merchantId, { reference: 'P-1' }), 'reference'],
      [hold(merchantId, { extra: true }), 'extra'],
      [[hold(merchantId)], 'body'],
    ];
    for (const [body, field] of cases) {
      const response = await ledger.request('POST', '/internal/holds', body);
      expect([JSON.stringify(body), response.status, response.body.code]).toEqual([JSON.stringify(body), 400, 'VALIDATION_ERROR']);
      expect(response.body.details.map((detail: { field: string }) => detail.field)).toContain(field);
    }
    const notJson = await ledger.request('POST', '/internal/holds', '{"hold_id":');
    expect([notJson.status, notJson.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    expect(await ledger.balances(merchantId)).toEqual({ settlement: [], deposit: [] });
  });

  it('refuses a hold the balance does not cover, leaving no trace, and a reused hold id with other parameters', async () => {
    const merchantId = newMerchantId('holds');
    const poor = await ledger.request('POST', '/internal/holds', hold(merchantId));
    expect([poor.status, poor.body.code]).toEqual([400, 'INSUFFICIENT_FUNDS']);
    expect(await ledger.query(`SELECT * FROM ledger_balances WHERE merchant_id = $1`, [merchantId])).toEqual([]);

    const funding = paymentOrderEvent('PaymentOrderSucceeded', {
      merchantId,
      orderId: 'A-1',
      direction: 'incoming',
      amountMinor: '5000',
      feeMinor: '0',
      currency: 'RUB',
    });
    await ledger.publish([funding]);
    await ledger.eventuallyConsumed([funding.id]);

    const placed = await ledger.request('POST', '/internal/holds', hold(merchantId));
    expect([placed.status, placed.body]).toEqual([201, { hold_id: `payout:${merchantId}:P-1`, status: 'pending', amount_minor: '1000', fee_minor: '10' }]);
    const again = await ledger.request('POST', '/internal/holds', hold(merchantId));
    expect([again.status, again.body]).toEqual([200, placed.body]);
    for (const changed of [
      { amount_minor: '1001' },
      { fee_minor: '0' },
      { reference: { kind: 'withdrawal', id: 'P-1' } },
      { reference: { kind: 'payment_order', id: 'P-2' } },
    ]) {
      const conflict = await ledger.request('POST', '/internal/holds', hold(merchantId, changed));
      expect([conflict.status, conflict.body.code, conflict.body.details[0].field]).toEqual([400, 'VALIDATION_ERROR', 'hold_id']);
    }
    // A withdrawal's hold shares the ledger, under its own id.
    const withdrawal = await ledger.request(
      'POST',
      '/internal/holds',
      hold(merchantId, { hold_id: 'withdrawal:W-1', reference: { kind: 'withdrawal', id: 'W-1' }, amount_minor: '2000', fee_minor: '0' }),
    );
    expect(withdrawal.status).toBe(201);
    expect(await ledger.balances(merchantId)).toEqual({ settlement: [{ currency: 'RUB', available: '19.90', frozen: '30.10' }], deposit: [] });
  });

  it('moves the deposit only by operator adjustments: idempotent, with a reason, never below zero', async () => {
    const merchantId = newMerchantId('deposit');
    const path = `/internal/merchants/${merchantId}/deposit-adjustments`;
    const topUp = { adjustment_id: 'ADJ-1', currency: 'USDT', amount_minor: '100000000', reason: 'collateral received', operator_id: 'op_1' };

    const booked = await ledger.request('POST', path, topUp);
    expect(booked.status).toBe(201);
    expect(booked.body).toMatchObject({
      adjustment_id: 'ADJ-1',
      merchant_id: merchantId,
      currency: 'USDT',
      amount_minor: '100000000',
      amount: '100.000000',
      reason: 'collateral received',
      operator_id: 'op_1',
      deposit: { currency: 'USDT', available: '100.000000' },
    });
    const repeat = await ledger.request('POST', path, topUp);
    expect([repeat.status, repeat.body]).toEqual([200, booked.body]);

    const changed = await ledger.request('POST', path, { ...topUp, amount_minor: '5' });
    expect([changed.status, changed.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const tooMuch = await ledger.request('POST', path, { ...topUp, adjustment_id: 'ADJ-2', amount_minor: '-100000001', reason: 'chargeback' });
    expect([tooMuch.status, tooMuch.body.code]).toEqual([400, 'INSUFFICIENT_FUNDS']);
    for (const invalid of [
      { ...topUp, adjustment_id: 'ADJ-3', reason: '  ' },
      { ...topUp, adjustment_id: 'ADJ-3', amount_minor: '0' },
      { ...topUp, adjustment_id: 'ADJ-3', operator_id: '' },
      { ...topUp, adjustment_id: 'ADJ-3', currency: 'usdt' },
    ]) {
      const response = await ledger.request('POST', path, invalid);
      expect([response.status, response.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    }

    const deducted = await ledger.request('POST', path, { ...topUp, adjustment_id: 'ADJ-4', amount_minor: '-30000000', reason: 'fine, "late" docs\nticket 7' });
    expect(deducted.status).toBe(201);
    expect(deducted.body.deposit).toEqual({ currency: 'USDT', available: '70.000000' });
    expect(await ledger.balances(merchantId)).toEqual({ settlement: [], deposit: [{ currency: 'USDT', available: '70.000000' }] });
    const trail = await ledger.query(
      `SELECT adjustment_id, amount_minor::text, operator_id, deposit_after::text FROM ledger_deposit_adjustments WHERE merchant_id = $1 ORDER BY recorded_at`,
      [merchantId],
    );
    expect(trail).toEqual([
      { adjustment_id: 'ADJ-1', amount_minor: '100000000', operator_id: 'op_1', deposit_after: '100000000' },
      { adjustment_id: 'ADJ-4', amount_minor: '-30000000', operator_id: 'op_1', deposit_after: '70000000' },
    ]);
  });

  it('lists entries newest first with their references, paged without gaps, and exports a period as CSV', async () => {
    const merchantId = newMerchantId('statement');
    const periodStart = new Date(Date.now() - 1_000);
    const funding = paymentOrderEvent('PaymentOrderSucceeded', {
      merchantId,
      orderId: 'A,1 "quoted"',
      direction: 'incoming',
      amountMinor: '20000',
      feeMinor: '250',
      currency: 'RUB',
    });
    await ledger.publish([funding]);
    await ledger.eventuallyConsumed([funding.id]);
    expect((await ledger.placeHold(merchantId, `payout:${merchantId}:P-1`, '5000', '100')).status).toBe(201);
    const posted = paymentOrderEvent('PaymentOrderSucceeded', {
      merchantId,
      orderId: 'P-1',
      direction: 'outgoing',
      amountMinor: '5000',
      feeMinor: '100',
      currency: 'RUB',
    });
    await ledger.publish([posted]);
    await ledger.eventuallyConsumed([posted.id]);
    const adjustment = await ledger.request('POST', `/internal/merchants/${merchantId}/deposit-adjustments`, {
      adjustment_id: 'ADJ-1',
      currency: 'USD',
      amount_minor: '1234',
      reason: 'top-up, per "contract"\r\nline 2',
      operator_id: 'op_7',
    });
    expect(adjustment.status).toBe(201);

    const all = await ledger.request('GET', `/internal/merchants/${merchantId}/entries`);
    expect(all.status).toBe(200);
    expect(
      all.body.data.map((entry: { code: string; reference: { kind: string; id: string } }) => `${entry.code} ${entry.reference.kind}:${entry.reference.id}`),
    ).toEqual([
      'DEPOSIT_TOP_UP deposit_adjustment:ADJ-1',
      'HOLD_FEE payment_order:P-1',
      'HOLD_POSTED payment_order:P-1',
      'HOLD_PLACED payment_order:P-1',
      'PAYIN_FEE payment_order:A,1 "quoted"',
      'PAYIN_SETTLED payment_order:A,1 "quoted"',
    ]);
    expect(all.body.data[5]).toEqual({
      posting_id: 'payin:A,1 "quoted":settled',
      currency: 'RUB',
      code: 'PAYIN_SETTLED',
      debit_account: 'clearing',
      credit_account: 'settlement_available',
      amount_minor: '19750',
      amount: '197.50',
      reference: { kind: 'payment_order', id: 'A,1 "quoted"' },
      event_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      memo: '',
      recorded_at: expect.any(String),
    });
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await ledger.request(
        'GET',
        `/internal/merchants/${merchantId}/entries?limit=4${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      paged.push(...page.body.data.map((entry: { posting_id: string }) => entry.posting_id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(all.body.data.map((entry: { posting_id: string }) => entry.posting_id));
    const usd = await ledger.request('GET', `/internal/merchants/${merchantId}/entries?currency=USD`);
    expect(usd.body.data.map((entry: { posting_id: string }) => entry.posting_id)).toEqual(['deposit:ADJ-1']);
    const future = await ledger.request(
      'GET',
      `/internal/merchants/${merchantId}/entries?from=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`,
    );
    expect(future.body.data).toEqual([]);
    for (const bad of ['cursor=nope', 'limit=0', 'limit=x', 'currency=ZZZ', 'from=yesterday', 'from=2026-02-01T00:00:00Z&to=2026-01-01T00:00:00Z']) {
      const response = await ledger.request('GET', `/internal/merchants/${merchantId}/entries?${bad}`);
      expect([bad, response.status, response.body.code]).toEqual([bad, 400, 'VALIDATION_ERROR']);
    }

    const periodEnd = new Date(Date.now() + 1_000);
    const missing = await ledger.request('GET', `/internal/merchants/${merchantId}/reconciliation.csv?from=${periodStart.toISOString()}`);
    expect([missing.status, missing.body.code]).toEqual([400, 'VALIDATION_ERROR']);
    const csv = await ledger.request(
      'GET',
      `/internal/merchants/${merchantId}/reconciliation.csv?from=${periodStart.toISOString()}&to=${periodEnd.toISOString()}`,
    );
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="ledger-mch_statement_[\w-]+\.csv"$/);
    const records = parseCsv(csv.text);
    expect(records[0]).toEqual([
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
    ]);
    expect(records.slice(1).map((record) => record[3])).toEqual([...paged].reverse());
    expect(records[1].slice(1, 12)).toEqual([
      merchantId,
      'RUB',
      'payin:A,1 "quoted":settled',
      'PAYIN_SETTLED',
      'clearing',
      'settlement_available',
      '19750',
      '197.50',
      'payment_order',
      'A,1 "quoted"',
      all.body.data[5].event_id,
    ]);
    expect(records[6].slice(7)).toEqual(['1234', '12.34', 'deposit_adjustment', 'ADJ-1', all.body.data[0].event_id, 'top-up, per "contract"\r\nline 2']);
    // Every cent explained: the export's settlement lines add up to the balance.
    expect(await ledger.balances(merchantId)).toEqual({
      settlement: [{ currency: 'RUB', available: '146.50', frozen: '0.00' }],
      deposit: [{ currency: 'USD', available: '12.34' }],
    });

    const onlyUsd = parseCsv(
      (
        await ledger.request(
          'GET',
          `/internal/merchants/${merchantId}/reconciliation.csv?from=${periodStart.toISOString()}&to=${periodEnd.toISOString()}&currency=USD`,
        )
      ).text,
    );
    expect(onlyUsd.map((record) => record[3])).toEqual(['posting_id', 'deposit:ADJ-1']);
    const before = parseCsv(
      (await ledger.request('GET', `/internal/merchants/${merchantId}/reconciliation.csv?from=2020-01-01T00:00:00Z&to=${periodStart.toISOString()}`)).text,
    );
    expect(before).toHaveLength(1);
    expect((await ledger.audit()).discrepancies).toEqual([]);
  });

  it("gives one UTC day's entries of one currency oldest first, paged, and refuses a day that does not exist", async () => {
    const merchantId = newMerchantId('day');
    const funding = paymentOrderEvent('PaymentOrderSucceeded', {
      merchantId,
      orderId: 'D-1',
      direction: 'incoming',
      amountMinor: '20000',
      feeMinor: '250',
      currency: 'RUB',
    });
    await ledger.publish([funding]);
    await ledger.eventuallyConsumed([funding.id]);
    expect((await ledger.placeHold(merchantId, `payout:${merchantId}:D-2`, '5000', '100')).status).toBe(201);
    expect(
      (
        await ledger.request('POST', `/internal/merchants/${merchantId}/deposit-adjustments`, {
          adjustment_id: 'ADJ-D',
          currency: 'USD',
          amount_minor: '100',
          reason: 'top-up',
          operator_id: 'op_7',
        })
      ).status,
    ).toBe(201);
    const today = new Date().toISOString().slice(0, 10);
    const path = `/internal/merchants/${merchantId}/entries-of-day`;

    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await ledger.request('GET', `${path}?date=${today}&currency=RUB&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
      expect(page.status).toBe(200);
      paged.push(...page.body.data.map((entry: { code: string }) => entry.code));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(['PAYIN_SETTLED', 'PAYIN_FEE', 'HOLD_PLACED']);
    const usd = await ledger.request('GET', `${path}?date=${today}&currency=USD`);
    expect(usd.body).toEqual({ data: [expect.objectContaining({ posting_id: 'deposit:ADJ-D', amount_minor: '100' })], has_more: false, next_cursor: null });
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    expect((await ledger.request('GET', `${path}?date=${yesterday}&currency=RUB`)).body.data).toEqual([]);
    for (const bad of [
      'date=2026-02-30&currency=RUB',
      `date=${today}&currency=ZZZ`,
      'currency=RUB',
      `date=${today}T00:00:00Z&currency=RUB`,
      `date=${today}&currency=RUB&cursor=nope`,
    ]) {
      const response = await ledger.request('GET', `${path}?${bad}`);
      expect([bad, response.status, response.body.code]).toEqual([bad, 400, 'VALIDATION_ERROR']);
    }

    // The reconciliation report's anchor: the head of the merchant's stream in the currency by the end of the day.
    const anchorPath = `/internal/merchants/${merchantId}/ledger-anchor`;
    const anchor = await ledger.request('GET', `${anchorPath}?date=${today}&currency=RUB`);
    expect(anchor.body).toEqual({
      anchor: { stream_id: `ledger:${merchantId}:RUB`, stream_version: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) },
    });
    expect((await ledger.request('GET', `${anchorPath}?date=${yesterday}&currency=RUB`)).body).toEqual({ anchor: null });
    expect((await ledger.request('GET', `${anchorPath}?date=${today}&currency=ZZZ`)).status).toBe(400);
  });
});
