/**
 * Goal: the ledger's side of crypto (docs/api/money-and-fees.md). Conversions move settlement money between
 * currencies at the operator's rate less the platform fee, both legs or neither, idempotent by
 * conversion_id, visible in statements and the reconciliation export, and the auditor agrees.
 * Withdrawal events post or void the withdrawal's hold exactly once. A withdrawal hold whose
 * withdrawal never came to exist is released by the orphan sweep after asking the withdrawals
 * service (not payments). Method: the real ledger service on real PostgreSQL and Kafka; the
 * other services' answers are given by the test.
 */
import { WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION, WITHDRAWALS_TOPICS, withdrawalHoldId, withdrawalKey } from '@mp/contracts-withdrawals';
import { createEnvelope } from '@mp/shared-messaging';
import type { PaymentOrderDirectory } from './holds/payment-order-directory.port';
import { LedgerTestService, newMerchantId, paymentOrderEvent } from '@mp/ledger-testing';

class ScriptedDirectory implements PaymentOrderDirectory {
  readonly asked: string[] = [];
  constructor(private readonly answers: Record<string, boolean | 'unknown'>) {}
  async orderExists(_merchantId: string, orderId: string): Promise<boolean | 'unknown'> {
    this.asked.push(orderId);
    return this.answers[orderId] ?? 'unknown';
  }
}

describe('ledger: conversions and withdrawal holds', () => {
  let ledger: LedgerTestService;
  let merchantId: string;

  beforeAll(async () => {
    ledger = await LedgerTestService.start();
    merchantId = newMerchantId('crypto');
    await ledger.publish([
      paymentOrderEvent('PaymentOrderSucceeded', {
        merchantId,
        orderId: 'FUND-1',
        direction: 'incoming',
        amountMinor: '10101010',
        feeMinor: '0',
        currency: 'RUB',
      }),
    ]);
    await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '101010.10', frozen: '0.00' }], deposit: [] });
  });
  afterAll(async () => ledger?.stop());

  const conversion = {
    conversion_id: 'CV-1',
    from_currency: 'RUB',
    to_currency: 'USDT',
    amount_minor: '10101010',
    rate: '0.01',
    reason: 'merchant asked for USDT',
    operator_id: 'op_1',
  };
  const convert = (body: object) => ledger.request('POST', `/internal/merchants/${merchantId}/conversions`, body);

  it('converts at the rate less the 1 % fee, once per conversion_id, both legs or neither', async () => {
    const booked = await convert(conversion);
    expect(booked.status).toBe(201);
    expect(booked.body).toMatchObject({ from_amount: '101010.10', fee: '1010.10', to_amount: '1000.000000', rate: '0.01', operator_id: 'op_1' });
    expect(await ledger.balances(merchantId)).toEqual({
      settlement: [
        { currency: 'RUB', available: '0.00', frozen: '0.00' },
        { currency: 'USDT', available: '1000.000000', frozen: '0.000000' },
      ],
      deposit: [],
    });
    expect((await convert(conversion)).status).toBe(200);
    const otherRate = await convert({ ...conversion, rate: '0.02' });
    expect(otherRate.status).toBe(400);
    expect(otherRate.body.details[0].field).toBe('conversion_id');
    const tooMuch = await convert({ ...conversion, conversion_id: 'CV-2', amount_minor: '100' });
    expect(tooMuch.status).toBe(400);
    expect(tooMuch.body.code).toBe('INSUFFICIENT_FUNDS');
    const badRate = await convert({ ...conversion, conversion_id: 'CV-3', rate: '-1' });
    expect(badRate.status).toBe(400);
    expect(badRate.body.details).toEqual([expect.objectContaining({ field: 'rate' })]);
    // Nothing of the refused ones was written: the target leg of CV-2 never happened either.
    const [{ count }] = await ledger.query<{ count: number }>(
      `SELECT count(*)::int AS count FROM ledger_postings WHERE reference_kind = 'conversion' AND reference_id <> 'CV-1'`,
    );
    expect(count).toBe(0);

    const entries = await ledger.request('GET', `/internal/merchants/${merchantId}/entries`);
    const lines = entries.body.data.filter((entry: { reference: { kind: string } }) => entry.reference.kind === 'conversion');
    expect(
      lines
        .map((entry: { code: string; debit_account: string; credit_account: string; amount: string }) => [
          entry.code,
          entry.debit_account,
          entry.credit_account,
          entry.amount,
        ])
        .sort(),
    ).toEqual([
      ['CONVERSION_FEE', 'settlement_available', 'fee_revenue', '1010.10'],
      ['CONVERSION_IN', 'fx', 'settlement_available', '1000.000000'],
      ['CONVERSION_OUT', 'settlement_available', 'fx', '100000.00'],
    ]);
    expect(lines[0].memo).toContain('RUB→USDT at 0.01: merchant asked for USDT');
    const csv = await ledger.request('GET', `/internal/merchants/${merchantId}/reconciliation.csv?from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z`);
    expect(csv.text).toContain('CONVERSION_IN,fx,settlement_available,1000000000,1000.000000,conversion,CV-1');
    const [trail] = await ledger.query(`SELECT operator_id, rate, reason FROM ledger_conversions WHERE merchant_id = $1`, [merchantId]);
    expect(trail).toEqual({ operator_id: 'op_1', rate: '0.01', reason: 'merchant asked for USDT' });
  });

  function withdrawalEvent(type: 'WithdrawalRequested' | 'WithdrawalCompleted' | 'WithdrawalFailed', orderId: string, amountMinor: string, feeMinor: string) {
    return createEnvelope({
      type,
      schemaVersion: WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION,
      source: 'withdrawals',
      subject: `merchant:${merchantId}/withdrawal:${orderId}`,
      data: {
        merchantId,
        orderId,
        holdId: withdrawalHoldId(merchantId, orderId),
        balanceAsset: 'USDT',
        amountMinor,
        networkFeeMinor: feeMinor,
        version: 1,
        occurredAt: new Date().toISOString(),
        withdrawal: {},
      },
      correlationId: `req_${orderId}`,
    });
  }

  const placeWithdrawalHold = (orderId: string, amountMinor: string, feeMinor: string) =>
    ledger.request('POST', '/internal/holds', {
      hold_id: withdrawalHoldId(merchantId, orderId),
      merchant_id: merchantId,
      currency: 'USDT',
      amount_minor: amountMinor,
      fee_minor: feeMinor,
      reference: { kind: 'withdrawal', id: orderId },
    });

  it('posts a completed withdrawal hold and voids a failed one, once each', async () => {
    expect((await placeWithdrawalHold('W-OK', '100000000', '5000000')).status).toBe(201);
    expect((await placeWithdrawalHold('W-FAIL', '50000000', '5000000')).status).toBe(201);
    const completed = withdrawalEvent('WithdrawalCompleted', 'W-OK', '100000000', '5000000');
    const failed = withdrawalEvent('WithdrawalFailed', 'W-FAIL', '50000000', '5000000');
    await ledger.publishTo(WITHDRAWALS_TOPICS.events, withdrawalKey(merchantId, 'W-OK'), [
      withdrawalEvent('WithdrawalRequested', 'W-OK', '100000000', '5000000'),
      completed,
      completed,
    ]);
    await ledger.publishTo(WITHDRAWALS_TOPICS.events, withdrawalKey(merchantId, 'W-FAIL'), [failed]);
    await ledger.eventuallyBalances(merchantId, {
      settlement: [
        { currency: 'RUB', available: '0.00', frozen: '0.00' },
        { currency: 'USDT', available: '895.000000', frozen: '0.000000' },
      ],
      deposit: [],
    });
    const holds = await ledger.query(`SELECT hold_id, status FROM ledger_holds WHERE reference_kind = 'withdrawal' AND merchant_id = $1 ORDER BY hold_id`, [
      merchantId,
    ]);
    expect(holds).toEqual([
      { hold_id: withdrawalHoldId(merchantId, 'W-FAIL'), status: 'voided' },
      { hold_id: withdrawalHoldId(merchantId, 'W-OK'), status: 'posted' },
    ]);
  });

  it('releases a withdrawal hold whose withdrawal never came to exist, asking the withdrawals service', async () => {
    expect((await placeWithdrawalHold('W-GONE', '10000000', '0')).status).toBe(201);
    // A fixed window, not a condition: the sweeper's 1 s grace runs out (it reads the clock).
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    const payments = new ScriptedDirectory({});
    const withdrawals = new ScriptedDirectory({ 'W-GONE': false });
    const outcome = await ledger.orphanHoldSweeper(payments, 1_000, withdrawals).sweepOnce();
    expect(outcome.voided).toBe(1);
    expect(withdrawals.asked).toEqual(['W-GONE']);
    expect(payments.asked).toEqual([]);
    expect((await ledger.balances(merchantId)).settlement[1]).toEqual({ currency: 'USDT', available: '895.000000', frozen: '0.000000' });
  });

  it('leaves books the auditor agrees with', async () => {
    const report = await ledger.audit();
    expect(report.discrepancies).toEqual([]);
    expect(report.ok).toBe(true);
  });

  it('notices a conversion the trail records but whose legs were never booked', async () => {
    await ledger.query(
      `INSERT INTO ledger_conversions (merchant_id, conversion_id, from_currency, to_currency, from_amount_minor, fee_minor, to_amount_minor, rate, reason, operator_id, recorded_at)
       VALUES ($1, 'CV-GHOST', 'RUB', 'USDT', 100, 1, 990000, '0.01', 'forged', 'op_x', now())`,
      [merchantId],
    );
    const report = await ledger.audit();
    expect(report.ok).toBe(false);
    expect(report.discrepancies).toEqual([`merchant ${merchantId} conversion CV-GHOST: in ledger_conversions but no leg is booked`]);
  });
});
