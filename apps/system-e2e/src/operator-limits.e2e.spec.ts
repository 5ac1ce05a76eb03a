/**
 * Goal: an operator's powers over money have limits (issue 20), through the back office as
 * operators use it. A conversion needs its conversion_id, and one at a rate outside the band
 * around the reference is refused with nothing moved. A deposit adjustment above the threshold
 * waits for a second operator: the requester cannot approve it, another operator's approval
 * books it once, a rejection moves nothing; a small one books at once. The acting operator is
 * the back-office credential. Method: real gateway, ledger, payments and Kafka
 * with two operators made by the bootstrap command; balances read through the back office.
 */
import { BackofficeClient, createOperator, SystemUnderTest } from '@mp/shared-testing';
import { newOrderId } from './fixtures';

describe('limits on operator money actions', () => {
  let system: SystemUnderTest;
  let alice: BackofficeClient;
  let bob: BackofficeClient;
  let merchantId: string;

  beforeAll(async () => {
    // One operator alone moves up to 1,000.00 RUB; RUB→USDT around 0.0108 ± 2 %.
    system = await SystemUnderTest.start({ env: { ledger: { LEDGER_APPROVAL_THRESHOLDS: 'RUB:100000', LEDGER_CONVERSION_REFERENCE_RATES: 'RUB/USDT:0.0108' } } });
    alice = await createOperator(system, 'Alice');
    bob = await createOperator(system, 'Bob');
    merchantId = (await system.createClient('Limits shop')).credentials.merchantId;
  });
  afterAll(async () => system?.stop());

  const adjust = (operator: BackofficeClient, amount: number, adjustmentId = newOrderId('adj')) =>
    operator.request('POST', `/backoffice/v1/merchants/${merchantId}/deposit-adjustments`, { adjustment_id: adjustmentId, currency: 'RUB', amount, reason: 'security deposit wired' });
  const deposit = async () => (await alice.request('GET', `/backoffice/v1/merchants/${merchantId}/balances`)).body.deposit;

  it('refuses a conversion without conversion_id and one outside the rate band; nothing moves', async () => {
    const conversion = { from_currency: 'RUB', to_currency: 'USDT', amount: 100, rate: '0.0108', reason: 'merchant asked for USDT' };
    const withoutId = await alice.request('POST', `/backoffice/v1/merchants/${merchantId}/conversions`, conversion);
    expect([withoutId.status, withoutId.body.error.details.map((detail: { field: string }) => detail.field)]).toEqual([400, ['conversion_id']]);
    const forged = await alice.request('POST', `/backoffice/v1/merchants/${merchantId}/conversions`, { ...conversion, conversion_id: 'CV-FORGED', rate: '108' });
    expect([forged.status, forged.body.error.code, forged.body.error.details.map((detail: { field: string }) => detail.field)]).toEqual([400, 'VALIDATION_ERROR', ['rate']]);
    expect((await alice.request('GET', `/backoffice/v1/merchants/${merchantId}/balances`)).body).toEqual({ settlement: [], deposit: [] });
  });

  it('books a small adjustment at once', async () => {
    const small = await adjust(alice, 500);
    expect(small.status).toBe(201);
    expect(await deposit()).toEqual([{ currency: 'RUB', available: 500 }]);
  });

  it('holds a large adjustment until a second operator approves it; the requester cannot; it books once', async () => {
    const requested = await adjust(alice, 5000);
    expect([requested.status, requested.body.status, requested.body.kind]).toEqual([202, 'pending', 'deposit_adjustment']);
    const approvalId: string = requested.body.approval_id;
    expect(await deposit()).toEqual([{ currency: 'RUB', available: 500 }]);
    const pending = await bob.request('GET', `/backoffice/v1/approvals?merchant_id=${merchantId}`);
    expect(pending.body.data.map((approval: { approval_id: string }) => approval.approval_id)).toEqual([approvalId]);

    const own = await alice.request('POST', `/backoffice/v1/approvals/${approvalId}/approve`);
    expect([own.status, own.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(await deposit()).toEqual([{ currency: 'RUB', available: 500 }]);

    const approved = await bob.request('POST', `/backoffice/v1/approvals/${approvalId}/approve`);
    expect([approved.status, approved.body.status]).toEqual([200, 'approved']);
    expect(approved.body.decided_by).not.toBe(approved.body.requested_by);
    expect((await bob.request('POST', `/backoffice/v1/approvals/${approvalId}/approve`)).status).toBe(200);
    expect(await deposit()).toEqual([{ currency: 'RUB', available: 5500 }]);
  });

  it('moves nothing when the second operator rejects', async () => {
    const requested = await adjust(alice, -2000);
    expect(requested.status).toBe(202);
    const rejected = await bob.request('POST', `/backoffice/v1/approvals/${requested.body.approval_id}/reject`, { reason: 'no instruction from the merchant' });
    expect([rejected.status, rejected.body.status]).toEqual([200, 'rejected']);
    expect((await bob.request('POST', `/backoffice/v1/approvals/${requested.body.approval_id}/approve`)).status).toBe(400);
    expect(await deposit()).toEqual([{ currency: 'RUB', available: 5500 }]);
  });
});
