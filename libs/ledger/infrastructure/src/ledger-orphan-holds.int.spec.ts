/**
 * Goal: a payout hold whose order never came to exist (payments died between the hold and the
 * order's commit) is released, and no other hold ever is. Released only when the ledger never
 * saw the order's creation, nobody asked for the hold during the grace period and payments
 * answers "no such order"; an unreachable payments service releases nothing. Method: the real
 * ledger service on real PostgreSQL and Kafka; the payments service's answer is the one thing
 * given by the test (the e2e suite runs the same sweep against the real payments service).
 */
import { eventually } from '@mp/shared-testing';
import type { PaymentOrderDirectory } from './holds/payment-order-directory.port';
import { LedgerTestService, newMerchantId, paymentOrderEvent } from '@mp/ledger-testing';

const GRACE_MS = 1_000;
/** Lets the grace window run (a fixed time, not a condition: the sweeper reads the clock). */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Answers for the orders it was told about; counts the questions. */
class ScriptedPayments implements PaymentOrderDirectory {
  readonly asked: string[] = [];
  constructor(private readonly answers: Record<string, boolean | 'unknown'>) {}
  async orderExists(_merchantId: string, orderId: string): Promise<boolean | 'unknown'> {
    this.asked.push(orderId);
    return this.answers[orderId] ?? 'unknown';
  }
}

describe('ledger: orphaned payout holds', () => {
  let ledger: LedgerTestService;
  let merchantId: string;

  beforeAll(async () => {
    ledger = await LedgerTestService.start();
    merchantId = newMerchantId('orphans');
    await ledger.publish([
      paymentOrderEvent('PaymentOrderSucceeded', {
        merchantId,
        orderId: 'FUND-1',
        direction: 'incoming',
        amountMinor: '100000',
        feeMinor: '0',
        currency: 'RUB',
      }),
    ]);
    await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '1000.00', frozen: '0.00' }], deposit: [] });
  });
  afterAll(async () => ledger?.stop());

  const hold = (orderId: string) => `payout:${merchantId}:${orderId}`;

  it('voids only the hold payments has no order for, once, after the grace period', async () => {
    for (const orderId of ['GONE', 'SLOW-EVENT', 'PAYMENTS-DOWN', 'CREATED'])
      expect((await ledger.placeHold(merchantId, hold(orderId), '10000')).status).toBe(201);
    // CREATED's order event arrives as usual: that hold is attached and never asked about.
    const created = paymentOrderEvent('PaymentOrderCreated', {
      merchantId,
      orderId: 'CREATED',
      direction: 'outgoing',
      amountMinor: '10000',
      feeMinor: '0',
      currency: 'RUB',
    });
    await ledger.publish([created]);
    await eventually(
      async () => (await ledger.query(`SELECT 1 FROM ledger_holds WHERE hold_id = $1 AND attached_at IS NOT NULL`, [hold('CREATED')])).length === 1,
    );
    const payments = new ScriptedPayments({ GONE: false, 'SLOW-EVENT': true, 'PAYMENTS-DOWN': 'unknown' });
    const sweeper = ledger.orphanHoldSweeper(payments, GRACE_MS);

    expect(await sweeper.sweepOnce()).toEqual({ attached: 0, voided: 0, undecided: 0 });
    await pause(GRACE_MS + 200);
    expect(await sweeper.sweepOnce()).toEqual({ attached: 1, voided: 1, undecided: 1 });
    expect(payments.asked.sort()).toEqual(['GONE', 'PAYMENTS-DOWN', 'SLOW-EVENT']);
    await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '700.00', frozen: '300.00' }], deposit: [] }, 1);

    payments.asked.length = 0;
    expect(await sweeper.sweepOnce()).toEqual({ attached: 0, voided: 0, undecided: 1 });
    expect(payments.asked).toEqual(['PAYMENTS-DOWN']);
    const statuses = await ledger.query<{ hold_id: string; status: string }>(
      `SELECT hold_id, status FROM ledger_holds WHERE merchant_id = $1 ORDER BY hold_id`,
      [merchantId],
    );
    expect(statuses.map((row) => `${row.hold_id.split(':').pop()} ${row.status}`)).toEqual([
      'CREATED pending',
      'GONE voided',
      'PAYMENTS-DOWN pending',
      'SLOW-EVENT pending',
    ]);
    expect((await ledger.audit()).discrepancies).toEqual([]);
  });

  it('waits while the hold is being asked for again, and answers a retry after the void with the voided hold', async () => {
    expect((await ledger.placeHold(merchantId, hold('RETRIED'), '5000')).status).toBe(201);
    const sweeper = ledger.orphanHoldSweeper(new ScriptedPayments({ RETRIED: false }), GRACE_MS);
    await pause(GRACE_MS - 300);
    // A retry of the payout create, still within the grace: the grace starts over.
    expect((await ledger.placeHold(merchantId, hold('RETRIED'), '5000')).status).toBe(200);
    await pause(500);
    expect((await sweeper.sweepOnce()).voided).toBe(0);
    await pause(GRACE_MS);
    expect((await sweeper.sweepOnce()).voided).toBe(1);
    const late = await ledger.placeHold(merchantId, hold('RETRIED'), '5000');
    expect([late.status, late.body.status]).toEqual([200, 'voided']);
    expect((await ledger.audit()).discrepancies).toEqual([]);
  });

  it('runs on connections whose idle transactions the server ends, so no create commits long after its hold', async () => {
    const [setting] = await ledger.serviceQuery<{ idle_in_transaction_session_timeout: string }>('SHOW idle_in_transaction_session_timeout');
    expect(setting.idle_in_transaction_session_timeout).toBe('2min');
  });
});
