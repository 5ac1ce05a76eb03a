/**
 * Goal: one operator cannot mint or move money at will (docs/operations/operators.md). A conversion at a rate
 * outside the band around its pair's reference, or over the pair's cap, is refused and writes
 * nothing; a conversion or deposit adjustment above the currency's threshold waits for a second,
 * different operator, moves the money exactly once on approval, never on rejection or after
 * expiry. Method: the real ledger service on real PostgreSQL and Kafka, funded by a real
 * payment event; balances read back through its API, the trail through SQL.
 */
import { LedgerTestService, newMerchantId, paymentOrderEvent } from '@mp/ledger-testing';

describe('ledger: limits on operator money actions', () => {
  let ledger: LedgerTestService;
  let merchantId: string;
  // RUB/USDT reference 0.01 ± 2 %, cap 10,000,000.00 RUB; one operator alone up to 1,000,000.00 RUB (TEST_OPERATOR_LIMITS).
  const funded = { settlement: [{ currency: 'RUB', available: '20000000.00', frozen: '0.00' }], deposit: [] };

  beforeAll(async () => {
    ledger = await LedgerTestService.start();
    merchantId = newMerchantId('limits');
    await ledger.publish([
      paymentOrderEvent('PaymentOrderSucceeded', {
        merchantId,
        orderId: 'FUND-1',
        direction: 'incoming',
        amountMinor: '2000000000',
        feeMinor: '0',
        currency: 'RUB',
      }),
    ]);
    await ledger.eventuallyBalances(merchantId, funded);
  });
  afterAll(async () => ledger?.stop());

  const conversion = {
    conversion_id: 'CV-1',
    from_currency: 'RUB',
    to_currency: 'USDT',
    amount_minor: '10000000',
    rate: '0.01',
    reason: 'merchant asked for USDT',
    operator_id: 'op_alice',
  };
  const convert = (body: object) => ledger.request('POST', `/internal/merchants/${merchantId}/conversions`, body);
  const adjust = (body: object) =>
    ledger.request('POST', `/internal/merchants/${merchantId}/deposit-adjustments`, {
      currency: 'RUB',
      reason: 'security deposit wired',
      operator_id: 'op_alice',
      ...body,
    });
  const decide = (approvalId: string, decision: 'approve' | 'reject', body: object) =>
    ledger.request('POST', `/internal/approvals/${approvalId}/${decision}`, body);
  const postingsOf = async (referenceId: string) =>
    (await ledger.query<{ count: number }>(`SELECT count(*)::int AS count FROM ledger_postings WHERE reference_id = $1`, [referenceId]))[0]?.count;

  it('refuses a conversion outside the rate band, a forged huge rate, one over the cap and one without conversion_id; nothing moves', async () => {
    const outOfBand = await convert({ ...conversion, conversion_id: 'CV-BAND', rate: '0.0103' });
    expect([outOfBand.status, outOfBand.body.code, outOfBand.body.details]).toEqual([
      400,
      'VALIDATION_ERROR',
      [expect.objectContaining({ field: 'rate', issue: expect.stringContaining('reference rate 0.01 for RUB/USDT') })],
    ]);
    const minting = await convert({ ...conversion, conversion_id: 'CV-MINT', rate: '1000000' });
    expect([minting.status, minting.body.details.map((detail: { field: string }) => detail.field)]).toEqual([400, ['rate']]);
    const overCap = await convert({ ...conversion, conversion_id: 'CV-CAP', amount_minor: '1000000001' });
    expect([overCap.status, overCap.body.details.map((detail: { field: string }) => detail.field)]).toEqual([400, ['amount']]);
    const unconfiguredPair = await convert({ ...conversion, conversion_id: 'CV-PAIR', to_currency: 'BTC', rate: '0.0000001' });
    expect([unconfiguredPair.status, unconfiguredPair.body.details[0].field]).toEqual([400, 'to_currency']);
    const { conversion_id: _omitted, ...withoutId } = conversion;
    const noId = await convert(withoutId);
    expect([noId.status, noId.body.details.map((detail: { field: string }) => detail.field)]).toEqual([400, ['conversion_id']]);

    expect(await ledger.balances(merchantId)).toEqual(funded);
    for (const id of ['CV-BAND', 'CV-MINT', 'CV-CAP', 'CV-PAIR']) expect(await postingsOf(id)).toBe(0);
    expect(await ledger.query(`SELECT * FROM ledger_operator_approvals`)).toEqual([]);
  });

  it('books a small deposit adjustment at once', async () => {
    const small = await adjust({ adjustment_id: 'ADJ-SMALL', amount_minor: '100000000' });
    expect([small.status, small.body.deposit]).toEqual([201, { currency: 'RUB', available: '1000000.00' }]);
  });

  it('holds a large deposit adjustment until a second operator approves it, then books it exactly once', async () => {
    // The same request twice at once (a double click, a retry racing the first) makes one request.
    const [requested, concurrent] = await Promise.all([
      adjust({ adjustment_id: 'ADJ-BIG', amount_minor: '500000000' }),
      adjust({ adjustment_id: 'ADJ-BIG', amount_minor: '500000000' }),
    ]);
    expect([requested.status, concurrent.status, concurrent.body.approval_id]).toEqual([202, 202, requested.body.approval_id]);
    expect(requested.body).toMatchObject({
      kind: 'deposit_adjustment',
      subject_id: 'ADJ-BIG',
      status: 'pending',
      requested_by: 'op_alice',
      decided_by: null,
      terms: { currency: 'RUB', amount_minor: '500000000' },
    });
    const approvalId: string = requested.body.approval_id;
    // A retry of the request finds the same one waiting; other terms under the id are refused.
    const retried = await adjust({ adjustment_id: 'ADJ-BIG', amount_minor: '500000000' });
    expect([retried.status, retried.body.approval_id]).toEqual([202, approvalId]);
    const otherTerms = await adjust({ adjustment_id: 'ADJ-BIG', amount_minor: '600000000' });
    expect([otherTerms.status, otherTerms.body.details[0].field]).toEqual([400, 'adjustment_id']);
    expect((await ledger.balances(merchantId)).deposit).toEqual([{ currency: 'RUB', available: '1000000.00' }]);
    const pending = await ledger.request('GET', `/internal/approvals?status=pending&merchant_id=${merchantId}`);
    expect(pending.body.data.map((approval: { approval_id: string }) => approval.approval_id)).toEqual([approvalId]);

    const byRequester = await decide(approvalId, 'approve', { operator_id: 'op_alice' });
    expect([byRequester.status, byRequester.body.code]).toEqual([403, 'FORBIDDEN']);
    expect(byRequester.body.details[0].issue).toContain('SAME_OPERATOR');
    expect((await ledger.balances(merchantId)).deposit).toEqual([{ currency: 'RUB', available: '1000000.00' }]);

    const approvals = await Promise.all([decide(approvalId, 'approve', { operator_id: 'op_bob' }), decide(approvalId, 'approve', { operator_id: 'op_bob' })]);
    expect(approvals.map((approval) => approval.status)).toEqual([200, 200]);
    expect(approvals[0]?.body).toMatchObject({ status: 'approved', requested_by: 'op_alice', decided_by: 'op_bob' });
    expect((await decide(approvalId, 'approve', { operator_id: 'op_carol' })).status).toBe(200);
    expect((await ledger.balances(merchantId)).deposit).toEqual([{ currency: 'RUB', available: '6000000.00' }]);
    expect(await postingsOf('ADJ-BIG')).toBe(1);
    const [trail] = await ledger.query(`SELECT operator_id, amount_minor::text FROM ledger_deposit_adjustments WHERE adjustment_id = 'ADJ-BIG'`);
    expect(trail).toEqual({ operator_id: 'op_alice', amount_minor: '500000000' });
    // Once approved, the request itself answers from the booking.
    expect((await adjust({ adjustment_id: 'ADJ-BIG', amount_minor: '500000000' })).status).toBe(200);
  });

  it('holds a large conversion for approval and converts once on it', async () => {
    const requested = await convert({ ...conversion, conversion_id: 'CV-BIG', amount_minor: '200000000' });
    expect([requested.status, requested.body.kind, requested.body.status]).toEqual([202, 'conversion', 'pending']);
    expect(await postingsOf('CV-BIG')).toBe(0);
    const approved = await decide(requested.body.approval_id, 'approve', { operator_id: 'op_bob' });
    expect([approved.status, approved.body.status]).toEqual([200, 'approved']);
    const balances = await ledger.balances(merchantId);
    expect(balances.settlement).toEqual([
      { currency: 'RUB', available: '18000000.00', frozen: '0.00' },
      { currency: 'USDT', available: '19800.000000', frozen: '0.000000' },
    ]);
    expect(await postingsOf('CV-BIG')).toBe(3);
  });

  it('moves nothing on rejection, and a rejected or expired request can no longer be approved', async () => {
    const before = await ledger.balances(merchantId);
    const requested = await adjust({ adjustment_id: 'ADJ-REJECTED', amount_minor: '-100000001' });
    expect(requested.status).toBe(202);
    expect((await decide(requested.body.approval_id, 'reject', { operator_id: 'op_bob' })).body.details[0].field).toBe('reason');
    const rejected = await decide(requested.body.approval_id, 'reject', { operator_id: 'op_bob', reason: 'no such agreement on file' });
    expect(rejected.body).toMatchObject({ status: 'rejected', decided_by: 'op_bob', decision_reason: 'no such agreement on file' });
    const late = await decide(requested.body.approval_id, 'approve', { operator_id: 'op_carol' });
    expect([late.status, late.body.details[0].field]).toEqual([400, 'approval_id']);

    const lapsing = await adjust({ adjustment_id: 'ADJ-LAPSED', amount_minor: '100000001' });
    await ledger.query(`UPDATE ledger_operator_approvals SET expires_at = requested_at + interval '1 millisecond' WHERE approval_id = $1`, [
      lapsing.body.approval_id,
    ]);
    const expired = await decide(lapsing.body.approval_id, 'approve', { operator_id: 'op_bob' });
    expect([expired.status, expired.body.details[0].issue]).toEqual([400, expect.stringContaining('expired')]);
    const listed = await ledger.request('GET', `/internal/approvals?status=expired&merchant_id=${merchantId}`);
    expect(listed.body.data.map((approval: { subject_id: string; status: string }) => [approval.subject_id, approval.status])).toEqual([
      ['ADJ-LAPSED', 'expired'],
    ]);

    expect(await ledger.balances(merchantId)).toEqual(before);
    expect(await postingsOf('ADJ-REJECTED')).toBe(0);
    expect(await postingsOf('ADJ-LAPSED')).toBe(0);
    expect((await decide('apr_unknown', 'approve', { operator_id: 'op_bob' })).status).toBe(404);
  });
});
