/**
 * Goal: an operator's powers over money have limits (docs/operations/operators.md), through the back office as
 * operators use it. A conversion needs its conversion_id, and one at a rate outside the band
 * around the reference is refused with nothing moved. A deposit adjustment above the threshold
 * waits for a second operator: the requester cannot approve it, another operator's approval
 * books it once, a rejection moves nothing; a small one books at once. The acting operator is
 * a person, not a credential: a second credential that an operator issues is a
 * second person who can approve nothing of his issuer's, nor his issuer anything of his, and only
 * an operator allowed to may issue credentials at all. Method: real gateway, ledger, payments and
 * Kafka with two operators made by the bootstrap command; balances read through the back office;
 * the ledger's auditor at the end.
 */
import { BackofficeClient, createOperator, runLedgerAudit, SystemUnderTest } from '@mp/shared-testing';
import { newOrderId } from './fixtures';

describe('limits on operator money actions', () => {
  let system: SystemUnderTest;
  let alice: BackofficeClient;
  let bob: BackofficeClient;
  let merchantId: string;

  beforeAll(async () => {
    // One operator alone moves up to 1,000.00 RUB; RUB→USDT around 0.0108 ± 2 %.
    system = await SystemUnderTest.start({
      env: { ledger: { LEDGER_APPROVAL_THRESHOLDS: 'RUB:100000', LEDGER_CONVERSION_REFERENCE_RATES: 'RUB/USDT:0.0108' } },
    });
    alice = await createOperator(system, 'Alice');
    bob = await createOperator(system, 'Bob');
    merchantId = (await system.createClient('Limits shop')).credentials.merchantId;
  });
  afterAll(async () => system?.stop());

  const adjust = (operator: BackofficeClient, amount: number, adjustmentId = newOrderId('adj')) =>
    operator.request('POST', `/backoffice/v1/merchants/${merchantId}/deposit-adjustments`, {
      adjustment_id: adjustmentId,
      currency: 'RUB',
      amount,
      reason: 'security deposit wired',
    });
  const deposit = async () => (await alice.request('GET', `/backoffice/v1/merchants/${merchantId}/balances`)).body.deposit;

  it('refuses a conversion without conversion_id and one outside the rate band; nothing moves', async () => {
    const conversion = { from_currency: 'RUB', to_currency: 'USDT', amount: 100, rate: '0.0108', reason: 'merchant asked for USDT' };
    const withoutId = await alice.request('POST', `/backoffice/v1/merchants/${merchantId}/conversions`, conversion);
    expect([withoutId.status, withoutId.body.error.details.map((detail: { field: string }) => detail.field)]).toEqual([400, ['conversion_id']]);
    const forged = await alice.request('POST', `/backoffice/v1/merchants/${merchantId}/conversions`, {
      ...conversion,
      conversion_id: 'CV-FORGED',
      rate: '108',
    });
    expect([forged.status, forged.body.error.code, forged.body.error.details.map((detail: { field: string }) => detail.field)]).toEqual([
      400,
      'VALIDATION_ERROR',
      ['rate'],
    ]);
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

  it('refuses an approval by a second credential the requester issued himself, in either direction; nothing moves', async () => {
    const issued = await alice.request('POST', '/backoffice/v1/operator-credentials', { name: 'Alice, second token' });
    expect([issued.status, issued.body.may_issue_operator_credentials]).toEqual([201, false]);
    expect(issued.body.operator_id).toMatch(/^op_[0-9a-f]{24}$/);
    const aliceTwo = new BackofficeClient(system.gatewayUrl, issued.body.token);
    const before = await deposit();

    const byAlice = await adjust(alice, 3000);
    const approvedBySecondToken = await aliceTwo.request('POST', `/backoffice/v1/approvals/${byAlice.body.approval_id}/approve`);
    expect([approvedBySecondToken.status, approvedBySecondToken.body.error.code, approvedBySecondToken.body.error.details[0].issue]).toEqual([
      403,
      'FORBIDDEN',
      expect.stringMatching(/^ISSUANCE_RELATED/),
    ]);
    const bySecondToken = await adjust(aliceTwo, 4000);
    const approvedByIssuer = await alice.request('POST', `/backoffice/v1/approvals/${bySecondToken.body.approval_id}/approve`);
    expect([approvedByIssuer.status, approvedByIssuer.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(await deposit()).toEqual(before);

    // An independent operator is a second pair of eyes for either.
    expect((await bob.request('POST', `/backoffice/v1/approvals/${byAlice.body.approval_id}/approve`)).status).toBe(200);
    expect(await deposit()).toEqual([{ currency: 'RUB', available: before[0].available + 3000 }]);
  });

  it('lets only an operator who may issue operator credentials issue one', async () => {
    const issued = await alice.request('POST', '/backoffice/v1/operator-credentials', { name: 'Night shift' });
    const nightShift = new BackofficeClient(system.gatewayUrl, issued.body.token);
    const refused = await nightShift.request('POST', '/backoffice/v1/operator-credentials', { name: 'Night shift, second token' });
    expect([refused.status, refused.body.error.code, refused.body.error.details[0].issue]).toEqual([
      403,
      'FORBIDDEN',
      expect.stringMatching(/^ISSUING_NOT_ALLOWED/),
    ]);
    const listed = await alice.request('GET', '/backoffice/v1/operator-credentials');
    expect(listed.body.data.map((credential: { name: string }) => credential.name)).not.toContain('Night shift, second token');
  });

  it('leaves books the ledger auditor agrees with', async () => {
    const { code, output } = await runLedgerAudit(system);
    expect(output).toContain('OK: every balance equals its postings');
    expect(code).toBe(0);
  });
});
