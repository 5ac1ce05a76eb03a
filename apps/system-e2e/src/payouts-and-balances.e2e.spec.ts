/**
 * Goal: money moves exactly as docs/api/money-and-fees.md says, through the whole system: a confirmed pay-in
 * credits settlement with amount − fee; a payout freezes amount + fee before it exists (or is
 * refused with INSUFFICIENT_FUNDS and never exists); completing it takes the hold, declining or
 * cancelling returns it; receipts reach the merchant. The race for one balance runs through the
 * signed API: 100 concurrent payouts of 15.00 against 1,000.00 give exactly 66 orders.
 * Method: real gateway, payments, ledger and Kafka; an operator configures fee-free methods;
 * balances are read through GET /v2/merchant/balances and polled while the ledger consumes.
 */
import { payoutHoldId } from '@mp/contracts-payments';
import { BackofficeClient, createOperator, eventually, registerAgent, SignedClient, SystemUnderTest, type RegisteredAgent } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

const ORPHAN_GRACE_MS = 3_000;
const PNG_RECEIPT = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('receipt-bytes')]);

function methods(feeRateBasisPoints: number, feeFixedMinor: string) {
  const common = {
    country: 'RU',
    currency: 'RUB',
    fee_rate_basis_points: feeRateBasisPoints,
    fee_fixed_minor: feeFixedMinor,
    min_amount_minor: '100',
    max_amount_minor: '100000000',
    expiry_minutes: 30,
  };
  return {
    entries: [
      { method: 'bank_card', direction: 'incoming', ...common },
      { method: 'bank_card', direction: 'outgoing', ...common },
    ],
  };
}

describe('payouts and balances', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: {
        gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '30000' },
        // A short grace so the orphan-hold test runs in seconds; real payouts must survive it too.
        ledger: { LEDGER_ORPHAN_HOLD_GRACE_MS: String(ORPHAN_GRACE_MS), LEDGER_ORPHAN_HOLD_SWEEP_INTERVAL_MS: '250' },
      },
    });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  });
  afterAll(async () => system?.stop());

  async function merchantWithMethods(name: string, feeRateBasisPoints = 0, feeFixedMinor = '0'): Promise<SignedClient> {
    const merchant = await system.createClient(name);
    const response = await operator.request(
      'PUT',
      `/backoffice/v1/merchants/${merchant.credentials.merchantId}/methods`,
      methods(feeRateBasisPoints, feeFixedMinor),
    );
    expect(response.status).toBe(200);
    return merchant;
  }

  /** A pay-in confirmed by the agent, then waits until the ledger shows the credit. */
  async function fund(merchant: SignedClient, amount: number, expectedAvailable: number): Promise<void> {
    const orderId = newOrderId('funding');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount }));
    expect(created.status).toBe(201);
    // The payer presses "Show payment details" on the page (a form post): that assigns the agent.
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const confirmed = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {});
    expect(confirmed.status).toBe(200);
    await eventuallyBalance(merchant, { available: expectedAvailable, frozen: 0 });
  }

  async function balance(merchant: SignedClient): Promise<{ available: number; frozen: number }> {
    const response = await merchant.get('/v2/merchant/balances');
    expect(response.status).toBe(200);
    const rub = response.body.settlement.find((entry: { currency: string }) => entry.currency === 'RUB');
    return rub ? { available: rub.available, frozen: rub.frozen } : { available: 0, frozen: 0 };
  }

  async function eventuallyBalance(merchant: SignedClient, expected: { available: number; frozen: number }): Promise<void> {
    await eventually(
      () => balance(merchant),
      (last) => last.available === expected.available && last.frozen === expected.frozen,
      `the balance ${JSON.stringify(expected)}`,
      20_000,
    );
  }

  const payout = (orderId: string, amount: number) => ({ ...incomingPayment(orderId, { amount }), method: 'bank_card', account_number: '4111 1111 1111 1111' });

  it('credits a confirmed pay-in with amount − fee (2 % + 1.00, rounded down)', async () => {
    const merchant = await merchantWithMethods('Fee shop', 200, '100');
    await fund(merchant, 1000.55, 979.54);
  });

  it('refuses a payout larger than the available balance, and no order exists', async () => {
    const merchant = await merchantWithMethods('Poor shop');
    await fund(merchant, 100, 100);
    const orderId = newOrderId('too-big');
    const refused = await merchant.post('/v2/payments/outgoing', payout(orderId, 100.01));
    expect([refused.status, refused.body.error.code]).toEqual([400, 'INSUFFICIENT_FUNDS']);
    expect((await merchant.get(`/v2/payments/status/${orderId}`)).status).toBe(404);
    expect(await balance(merchant)).toEqual({ available: 100, frozen: 0 });
  });

  it('holds amount + fee, takes it when the agent completes with a receipt, and shows the receipt', async () => {
    const merchant = await merchantWithMethods('Payout shop', 100, '500');
    await fund(merchant, 1000, 985);
    const orderId = newOrderId('payout');
    const created = await merchant.post('/v2/payments/outgoing', payout(orderId, 200));
    // The recipient account is masked for merchants (docs/behaviour.md).
    expect(created.body).toMatchObject({ status: 'PENDING', direction: 'outgoing', fee: 7, account_number: '•••• 1111' });
    expect(await balance(merchant)).toEqual({ available: 778, frozen: 207 });
    const retried = await merchant.post('/v2/payments/outgoing', payout(orderId, 200));
    expect([created.headers.get('idempotent-replayed'), retried.status, retried.headers.get('idempotent-replayed')]).toEqual([null, 201, 'true']);
    expect(await balance(merchant)).toEqual({ available: 778, frozen: 207 });

    const available = await agent.client.request('GET', '/backoffice/v1/agent/orders?scope=available');
    expect(available.body.data.map((order: { order_id: string }) => order.order_id)).toContain(orderId);
    const base = `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}`;
    expect((await agent.client.request('POST', `${base}/take`, {})).status).toBe(200);
    const notAReceipt = await agent.client.request('POST', `${base}/receipts`, Buffer.from('MZ this is an executable'), { 'x-file-name': 'receipt.pdf' });
    expect([notAReceipt.status, notAReceipt.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const upload = await agent.client.request('POST', `${base}/receipts`, PNG_RECEIPT, { 'x-file-name': 'transfer.png' });
    expect(upload.status).toBe(201);
    const completed = await agent.client.request('POST', `${base}/complete`, { receipt_id: upload.body.receipt_id });
    expect([completed.status, completed.body.status]).toEqual([200, 'SUCCEEDED']);
    // The answer is the order as payments' reply left it (no read back): the agent's own read says the same, receipt included.
    expect(completed.body).toEqual((await agent.client.request('GET', base)).body);
    expect(completed.body.receipts).toEqual([expect.objectContaining({ receipt_id: upload.body.receipt_id, file_name: 'transfer.png' })]);

    await eventuallyBalance(merchant, { available: 778, frozen: 0 });
    const receipts = await merchant.get(`/v2/payments/${orderId}/receipts`);
    expect(receipts.body.data).toEqual([
      expect.objectContaining({ receipt_id: upload.body.receipt_id, content_type: 'image/png', file_name: 'transfer.png', size_bytes: PNG_RECEIPT.length }),
    ]);
    const file = await merchant.get(receipts.body.data[0].download_path);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.text).toContain('receipt-bytes');
  });

  it('returns the hold when the agent declines or the merchant cancels', async () => {
    const merchant = await merchantWithMethods('Refund shop');
    await fund(merchant, 500, 500);
    const declinedId = newOrderId('declined');
    const cancelledId = newOrderId('cancelled');
    expect((await merchant.post('/v2/payments/outgoing', payout(declinedId, 100))).status).toBe(201);
    expect((await merchant.post('/v2/payments/outgoing', payout(cancelledId, 50))).status).toBe(201);
    expect(await balance(merchant)).toEqual({ available: 350, frozen: 150 });

    const base = `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${declinedId}`;
    await agent.client.request('POST', `${base}/take`, {});
    expect((await agent.client.request('POST', `${base}/decline`, { reason: 'account closed' })).body.status).toBe('FAILED');
    const cancelTaken = await merchant.post(`/v2/payments/${declinedId}/cancel`, {});
    expect([cancelTaken.status, cancelTaken.body.error.code]).toEqual([409, 'ORDER_NOT_CANCELLABLE']);
    expect((await merchant.post(`/v2/payments/${cancelledId}/cancel`, {})).body.status).toBe('CANCELLED');
    await eventuallyBalance(merchant, { available: 500, frozen: 0 });
  });

  it('gives exactly 66 of 100 concurrent payouts of 15.00 against 1,000.00, never going negative', async () => {
    const merchant = await merchantWithMethods('Race shop');
    await fund(merchant, 1000, 1000);
    const responses = await Promise.all(Array.from({ length: 100 }, () => merchant.post('/v2/payments/outgoing', payout(newOrderId('race'), 15))));
    const statuses = responses.map((response) => (response.status === 201 ? 'created' : `${response.status} ${response.body.error.code}`));
    expect(statuses.filter((status) => status === 'created')).toHaveLength(66);
    expect(statuses.filter((status) => status === '400 INSUFFICIENT_FUNDS')).toHaveLength(34);
    expect(await balance(merchant)).toEqual({ available: 10, frozen: 990 });
    const listed = await merchant.post('/v2/payments/outgoing/list', { limit: 100 });
    expect(listed.body.data).toHaveLength(66);
  });

  it('moves the deposit only by an operator adjustment, once per adjustment_id', async () => {
    const merchant = await merchantWithMethods('Deposit shop');
    const path = `/backoffice/v1/merchants/${merchant.credentials.merchantId}/deposit-adjustments`;
    const topUp = { adjustment_id: newOrderId('topup'), currency: 'RUB', amount: 5000, reason: 'security deposit wired on contract signature' };
    const booked = await operator.request('POST', path, topUp);
    expect([booked.status, booked.body.deposit]).toEqual([201, { currency: 'RUB', available: 5000 }]);
    const repeated = await operator.request('POST', path, topUp);
    expect([repeated.status, repeated.body.event_id]).toEqual([200, booked.body.event_id]);
    const tooMuch = await operator.request('POST', path, { ...topUp, adjustment_id: newOrderId('deduct'), amount: -5000.01 });
    expect([tooMuch.status, tooMuch.body.error.code]).toEqual([400, 'INSUFFICIENT_FUNDS']);
    const noReason = await operator.request('POST', path, { currency: 'RUB', amount: 1 });
    expect([noReason.status, noReason.body.error.details.map((detail: { field: string }) => detail.field)]).toEqual([400, ['reason']]);
    const balances = await merchant.get('/v2/merchant/balances');
    expect(balances.body.deposit).toEqual([{ currency: 'RUB', available: 5000 }]);
    const byAgent = await agent.client.request('POST', path, { ...topUp, adjustment_id: newOrderId('agent') });
    expect(byAgent.status).toBe(403);
  });

  it('shows operators every entry with the order it belongs to, as a statement and as a CSV export', async () => {
    const merchant = await merchantWithMethods('Statement shop', 200, '100');
    const startedAt = new Date(Date.now() - 1_000).toISOString();
    await fund(merchant, 1000.55, 979.54);
    const payoutId = newOrderId('statement-payout');
    expect((await merchant.post('/v2/payments/outgoing', payout(payoutId, 100))).status).toBe(201);
    const merchantPath = `/backoffice/v1/merchants/${merchant.credentials.merchantId}`;

    const statement = await operator.request('GET', `${merchantPath}/ledger/entries?currency=RUB&limit=50`);
    expect(statement.status).toBe(200);
    const references = statement.body.data.map((entry: { reference: { kind: string; id: string } }) => `${entry.reference.kind}:${entry.reference.id}`);
    expect(references).toContain(`payment_order:${payoutId}`);
    expect(references.filter((reference: string) => reference.startsWith('payment_order:funding')).length).toBeGreaterThanOrEqual(1);
    const firstPage = await operator.request('GET', `${merchantPath}/ledger/entries?limit=1`);
    expect([firstPage.body.data.length, firstPage.body.has_more]).toEqual([1, true]);
    const secondPage = await operator.request('GET', `${merchantPath}/ledger/entries?limit=1&cursor=${encodeURIComponent(firstPage.body.next_cursor)}`);
    expect(secondPage.body.data[0].posting_id).not.toBe(firstPage.body.data[0].posting_id);

    const endedAt = new Date(Date.now() + 1_000).toISOString();
    const csv = await operator.request(
      'GET',
      `${merchantPath}/ledger/reconciliation.csv?from=${encodeURIComponent(startedAt)}&to=${encodeURIComponent(endedAt)}`,
    );
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = csv.text.trim().split(/\r?\n/);
    expect(lines.length).toBe(statement.body.data.length + 1);
    expect(csv.text).toContain(payoutId);

    const badPeriod = await operator.request('GET', `${merchantPath}/ledger/reconciliation.csv?from=${encodeURIComponent(endedAt)}`);
    expect([badPeriod.status, badPeriod.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
    const unknownFilter = await operator.request('GET', `${merchantPath}/ledger/entries?status=SUCCEEDED`);
    expect([unknownFilter.status, unknownFilter.body.error.details[0].field]).toEqual([400, 'status']);
    const noSuchMerchant = await operator.request('GET', '/backoffice/v1/merchants/mch_nobody/ledger/entries');
    expect(noSuchMerchant.status).toBe(404);
  });

  it("gives the merchant a day's reconciliation CSV: every entry with its order, fees that sum, changes that sum to the balance", async () => {
    const merchant = await merchantWithMethods('Reconciled shop', 200, '100');
    await fund(merchant, 1000.55, 979.54);
    const payoutId = newOrderId('reconciled-payout');
    expect((await merchant.post('/v2/payments/outgoing', payout(payoutId, 100))).status).toBe(201);
    const today = new Date().toISOString().slice(0, 10);

    const report = await merchant.get(`/v2/merchant/reconciliation?date=${today}&currency=RUB`);
    expect([report.status, report.headers.get('content-type')]).toEqual([200, 'text/csv; charset=utf-8']);
    // The anchor of the merchant's own ledger entries: the version and hash of its stream's head (docs/api/endpoints.md).
    expect(report.headers.get('x-ledger-anchor')).toMatch(/^version=\d+; sha256=[0-9a-f]{64}$/);
    const [header, ...records] = report.text
      .trimEnd()
      .split('\r\n')
      .map((line: string) => line.split(','));
    const rows = records.map((values: string[]) => Object.fromEntries(header.map((column: string, index: number) => [column, values[index]])));
    const payIn = rows.filter((row: Record<string, string>) => row.reference_kind === 'payment_order' && row.reference_id.startsWith('funding'));
    // 1000.55 with 2 % + 1.00: 979.54 to the merchant, 21.01 fee, both entries tied to the order.
    expect(payIn.map((row: Record<string, string>) => [row.entry_type, row.amount_minor, row.fee_minor, row.available_change_minor])).toEqual([
      ['PAYIN_SETTLED', '97954', '0', '97954'],
      ['PAYIN_FEE', '2101', '2101', '0'],
    ]);
    expect(payIn[0]).toMatchObject({
      currency: 'RUB',
      currency_exponent: '2',
      order_direction: 'incoming',
      order_status: 'SUCCEEDED',
      order_amount_minor: '100055',
      order_fee_minor: '2101',
    });
    const payoutRows = rows.filter((row: Record<string, string>) => row.reference_id === payoutId);
    expect(payoutRows.map((row: Record<string, string>) => [row.entry_type, row.available_change_minor, row.frozen_change_minor, row.order_status])).toEqual([
      ['HOLD_PLACED', '-10300', '10300', 'PENDING'],
    ]);

    const sum = (column: string) => rows.reduce((total: bigint, row: Record<string, string>) => total + BigInt(row[column]), 0n);
    const balanceNow = await balance(merchant);
    // A new merchant: the day's changes are its whole balance.
    expect([sum('available_change_minor'), sum('frozen_change_minor')]).toEqual([
      BigInt(Math.round(balanceNow.available * 100)),
      BigInt(Math.round(balanceNow.frozen * 100)),
    ]);
    expect(sum('fee_minor')).toBe(2101n);

    // The opening and closing balances: opening plus the day's changes is closing, and both are
    // the back office's end-of-day balances of the same day (one function, docs/api/endpoints.md).
    const figures = (value: string | null) =>
      Object.fromEntries(
        (value ?? '')
          .split('; ')
          .map((pair) => pair.split('='))
          .map(([name, amount]) => [name, BigInt(amount)]),
      );
    const [opening, closing] = [figures(report.headers.get('x-opening-balance')), figures(report.headers.get('x-closing-balance'))];
    expect(opening).toEqual({ available: 0n, frozen: 0n, deposit: 0n });
    expect(closing).toEqual({
      available: opening.available + sum('available_change_minor'),
      frozen: opening.frozen + sum('frozen_change_minor'),
      deposit: opening.deposit + sum('deposit_change_minor'),
    });
    expect(closing.available).toBeGreaterThan(0n);
    const endOfDay = await operator.request('GET', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/balances/end-of-day?date=${today}`);
    const ruble = endOfDay.body.currencies.find((entry: { currency: string }) => entry.currency === 'RUB');
    const accounts = (balances: Record<string, string>) =>
      `available=${balances.settlement_available}; frozen=${balances.settlement_frozen}; deposit=${balances.deposit}`;
    expect([report.headers.get('x-opening-balance'), report.headers.get('x-closing-balance')]).toEqual([accounts(ruble.opening), accounts(ruble.closing)]);

    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
    const yesterdays = await merchant.get(`/v2/merchant/reconciliation?date=${yesterday}&currency=RUB`);
    expect([yesterdays.text, yesterdays.headers.get('x-ledger-anchor'), yesterdays.headers.get('x-closing-balance')]).toEqual([
      `${header.join(',')}\r\n`,
      null,
      'available=0; frozen=0; deposit=0',
    ]);
    for (const query of [
      'date=2026-02-30&currency=RUB',
      'date=yesterday&currency=RUB',
      `date=${today}&currency=XYZ`,
      `date=${today}`,
      'date=2999-01-01&currency=RUB',
    ]) {
      const refused = await merchant.get(`/v2/merchant/reconciliation?${query}`);
      expect([query, refused.status, refused.body.error?.code]).toEqual([query, 400, 'VALIDATION_ERROR']);
    }
  });

  it("lists each event store's daily anchors in the back office, through the store's internal API", async () => {
    for (const store of ['ledger', 'payments', 'withdrawals', 'disputes', 'callbacks']) {
      const anchors = await operator.request('GET', `/backoffice/v1/event-anchors/${store}?limit=5`);
      // A store made by this run has no closed day yet; the answer is its (empty) first page.
      expect([store, anchors.status, anchors.body]).toEqual([store, 200, { data: [] }]);
    }
    expect((await operator.request('GET', '/backoffice/v1/event-anchors/gateway')).status).toBe(404);
    const badQuery = await operator.request('GET', '/backoffice/v1/event-anchors/ledger?before=yesterday');
    expect([badQuery.status, badQuery.body.error.code]).toEqual([400, 'VALIDATION_ERROR']);
  });

  it('releases a hold whose payout never came to exist, keeps the holds of real payouts, and refuses to reuse that order_id', async () => {
    const merchant = await merchantWithMethods('Orphan shop');
    await fund(merchant, 1000, 1000);
    const merchantId = merchant.credentials.merchantId;
    // What the payments service does before it dies between the hold and the order's commit.
    const abandonedId = newOrderId('abandoned');
    const orphan = await fetch(`${system.ledgerUrl}/internal/holds`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await system.internalHeaders('ledger', { as: 'payments' })) },
      body: JSON.stringify({
        hold_id: payoutHoldId(merchantId, abandonedId),
        merchant_id: merchantId,
        currency: 'RUB',
        amount_minor: '30000',
        fee_minor: '0',
        reference: { kind: 'payment_order', id: abandonedId },
      }),
    });
    expect(orphan.status).toBe(201);
    const realId = newOrderId('real');
    expect((await merchant.post('/v2/payments/outgoing', payout(realId, 100))).status).toBe(201);
    expect(await balance(merchant)).toEqual({ available: 600, frozen: 400 });

    await eventuallyBalance(merchant, { available: 900, frozen: 100 });
    // A fixed window, not a condition: the orphan grace runs out within it, and the real hold must survive the sweep.
    await new Promise((resolve) => setTimeout(resolve, ORPHAN_GRACE_MS + 1_000));
    expect(await balance(merchant)).toEqual({ available: 900, frozen: 100 });

    const retried = await merchant.post('/v2/payments/outgoing', payout(abandonedId, 300));
    expect([retried.status, retried.body.error.code]).toEqual([409, 'DUPLICATE_ORDER']);
    expect((await merchant.get(`/v2/payments/status/${abandonedId}`)).status).toBe(404);
    const entries = await operator.request('GET', `/backoffice/v1/merchants/${merchantId}/ledger/entries?limit=10`);
    expect(entries.body.data.map((entry: { code: string; reference: { id: string } }) => `${entry.code} ${entry.reference.id}`)).toContain(
      `HOLD_VOIDED ${abandonedId}`,
    );
  });
});
