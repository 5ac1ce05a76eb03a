/**
 * Goal: the synchronous hold is exactly-once and never overdraws under contention. A merchant
 * with 1,000.00 available sends 100 concurrent payouts of 15.00 (fee 0): exactly 66 are
 * accepted and 34 refused with INSUFFICIENT_FUNDS, leaving 10.00 available and 990.00 frozen,
 * and the auditor agrees. Retrying all 100 changes nothing. Method: the real ledger service
 * (in process, default pool of 10 connections) on real PostgreSQL and Kafka; the money comes
 * in the way it does in production, as a published PaymentOrderSucceeded event.
 */
import { LedgerTestService, newMerchantId, paymentOrderEvent } from '@mp/ledger-testing';

describe('ledger: 100 concurrent payouts against one balance', () => {
  let ledger: LedgerTestService;

  beforeAll(async () => {
    ledger = await LedgerTestService.start();
  });
  afterAll(async () => ledger?.stop());

  it('accepts exactly 66 of 100 payouts of 15.00 against 1,000.00 and refuses 34 with INSUFFICIENT_FUNDS', async () => {
    const merchantId = newMerchantId('race');
    const funding = paymentOrderEvent('PaymentOrderSucceeded', {
      merchantId,
      orderId: 'FUND-1',
      direction: 'incoming',
      amountMinor: '100000',
      feeMinor: '0',
      currency: 'RUB',
    });
    await ledger.publish([funding]);
    await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '1000.00', frozen: '0.00' }], deposit: [] });

    const holdIds = Array.from({ length: 100 }, (_, index) => `payout:${merchantId}:P-${index}`);
    const startedAt = performance.now();
    const responses = await Promise.all(holdIds.map((holdId) => ledger.placeHold(merchantId, holdId, '1500')));
    const elapsedMs = performance.now() - startedAt;

    const accepted = responses.filter((response) => response.status === 201);
    const refused = responses.filter((response) => response.status === 400 && response.body?.code === 'INSUFFICIENT_FUNDS');
    expect({ accepted: accepted.length, refused: refused.length, other: responses.length - accepted.length - refused.length }).toEqual({
      accepted: 66,
      refused: 34,
      other: 0,
    });
    expect(accepted.every((response) => response.body.status === 'pending' && response.body.amount_minor === '1500' && response.body.fee_minor === '0')).toBe(
      true,
    );
    expect(refused[0].body.details[0]).toEqual({ field: 'amount', issue: expect.stringMatching(/15\.00 RUB.*exceeds the available 10\.00 RUB/) });
    await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '10.00', frozen: '990.00' }], deposit: [] }, 1);

    const [{ events }] = await ledger.query<{ events: number }>(`SELECT count(*)::int AS events FROM event_store WHERE stream_id = $1`, [
      `ledger:${merchantId}:RUB`,
    ]);
    const [{ holds }] = await ledger.query<{ holds: number }>(`SELECT count(*)::int AS holds FROM ledger_holds WHERE merchant_id = $1 AND status = 'pending'`, [
      merchantId,
    ]);
    expect({ events, holds }).toEqual({ events: 67, holds: 66 });

    // Every payout retried at once: the 66 answer 200 with their hold, the 34 are still refused.
    const retryStartedAt = performance.now();
    const retries = await Promise.all(holdIds.map((holdId) => ledger.placeHold(merchantId, holdId, '1500')));
    const retryElapsedMs = performance.now() - retryStartedAt;
    const acceptedIds = new Set(accepted.map((response) => response.body.hold_id));
    expect(retries.filter((response, index) => response.status === 200 && acceptedIds.has(holdIds[index]))).toHaveLength(66);
    expect(
      retries.filter((response, index) => response.status === 400 && response.body.code === 'INSUFFICIENT_FUNDS' && !acceptedIds.has(holdIds[index])),
    ).toHaveLength(34);
    await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '10.00', frozen: '990.00' }], deposit: [] }, 1);

    const report = await ledger.audit();
    expect(report.discrepancies).toEqual([]);
    expect(report.ok).toBe(true);
    console.log(
      `race: 100 concurrent holds in ${elapsedMs.toFixed(0)} ms, 100 concurrent retries in ${retryElapsedMs.toFixed(0)} ms; audit: ${report.events} events, ${report.postings} postings`,
    );
  });
});
