import { DomainError } from '@mp/shared-util-errors';
import { approvalStatusAt, decideApproval, evolveApproval, type ApprovalEvent, type OperatorApproval } from './operator-approval';
import {
  assertConversionWithinLimits,
  needsSecondOperator,
  parseCurrencyTable,
  parsePairTable,
  parsePositiveRate,
  parseMinorUnits,
  type OperatorMoneyLimits,
} from './operator-limits';

const limits: OperatorMoneyLimits = {
  referenceRates: parsePairTable('RUB/USDT:0.0105', parsePositiveRate, 'a rate').table,
  rateBandBasisPoints: 200,
  conversionCapsMinor: parsePairTable('RUB/USDT:100000000', parseMinorUnits, 'minor units').table,
  approvalThresholdsMinor: parseCurrencyTable('RUB:1000000,USDT:0').table,
  approvalTtlMs: 60_000,
};

function onlyEvent(events: ApprovalEvent[]): ApprovalEvent {
  if (events.length !== 1 || !events[0]) throw new Error(`expected one event, got ${events.length}`);
  return events[0];
}

function refusal(action: () => unknown): { code: string; fields: string[] } {
  try {
    action();
  } catch (error) {
    if (error instanceof DomainError) return { code: error.code, fields: (error.details ?? []).map((detail) => detail.field) };
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('operator limits: conversions', () => {
  const conversion = { fromCurrency: 'RUB', toCurrency: 'USDT', fromAmountMinor: 100_000_000n, rate: '0.0105' };

  it('accepts a rate on the edges of the band and an amount equal to the cap', () => {
    expect(() => assertConversionWithinLimits(limits, conversion)).not.toThrow();
    // 0.0105 ± 2 % = 0.01029 … 0.01071, exactly.
    expect(() => assertConversionWithinLimits(limits, { ...conversion, rate: '0.01071' })).not.toThrow();
    expect(() => assertConversionWithinLimits(limits, { ...conversion, rate: '0.01029' })).not.toThrow();
  });

  it('refuses a rate just outside the band, a forged huge rate and an amount over the cap, naming each field', () => {
    expect(refusal(() => assertConversionWithinLimits(limits, { ...conversion, rate: '0.010711' }))).toEqual({ code: 'VALIDATION_ERROR', fields: ['rate'] });
    expect(refusal(() => assertConversionWithinLimits(limits, { ...conversion, rate: '0.010289' }))).toEqual({ code: 'VALIDATION_ERROR', fields: ['rate'] });
    expect(refusal(() => assertConversionWithinLimits(limits, { ...conversion, rate: '1050', fromAmountMinor: 100_000_001n }))).toEqual({
      code: 'VALIDATION_ERROR',
      fields: ['rate', 'amount'],
    });
  });

  it('refuses a pair without a reference rate', () => {
    expect(refusal(() => assertConversionWithinLimits(limits, { ...conversion, fromCurrency: 'USDT', toCurrency: 'RUB', rate: '95' }))).toEqual({
      code: 'VALIDATION_ERROR',
      fields: ['to_currency'],
    });
  });
});

describe('operator limits: the second operator', () => {
  it('is needed strictly above the threshold, either sign, and always for a currency without one', () => {
    expect(needsSecondOperator(limits, 'RUB', 1_000_000n)).toBe(false);
    expect(needsSecondOperator(limits, 'RUB', 1_000_001n)).toBe(true);
    expect(needsSecondOperator(limits, 'RUB', -1_000_001n)).toBe(true);
    expect(needsSecondOperator(limits, 'USDT', 1n)).toBe(true);
    expect(needsSecondOperator(limits, 'EUR', 1n)).toBe(true);
  });
});

describe('operator limits: configuration text', () => {
  it('reports every bad entry', () => {
    expect(parsePairTable('RUB/USDT:0.01, RUB/RUB:1, XXX/USDT:1, RUB/USDT:0.02, USDT/RUB:-1', parsePositiveRate, 'a positive decimal').problems).toHaveLength(
      4,
    );
    expect(parseCurrencyTable('RUB:100,EUR:1.5,ZZZ:1').problems).toHaveLength(2);
    expect(parsePositiveRate('0')).toBeNull();
  });
});

describe('operator approval decider', () => {
  const requestedAt = new Date('2026-01-01T00:00:00Z');
  const expiresAt = new Date('2026-01-02T00:00:00Z');
  const request = {
    approvalId: 'ap_1',
    kind: 'deposit_adjustment' as const,
    merchantId: 'm_1',
    subjectId: 'ADJ-1',
    terms: { currency: 'RUB', amount_minor: '5000000', reason: 'wire' },
    requestedBy: 'op_a',
    expiresAt,
  };
  const pending = evolveApproval(
    null,
    onlyEvent(decideApproval({ type: 'RequestApproval', data: request, metadata: { now: requestedAt } }, null)),
  ) as OperatorApproval;
  const later = { now: new Date('2026-01-01T01:00:00Z') };

  it('records a request once; a retry with the same terms adds nothing, other terms are refused', () => {
    expect(pending).toMatchObject({ status: 'pending', requestedBy: 'op_a', requestedAt });
    expect(decideApproval({ type: 'RequestApproval', data: request, metadata: later }, pending)).toEqual([]);
    expect(
      refusal(() =>
        decideApproval({ type: 'RequestApproval', data: { ...request, terms: { ...request.terms, amount_minor: '9000000' } }, metadata: later }, pending),
      ),
    ).toEqual({ code: 'VALIDATION_ERROR', fields: ['adjustment_id'] });
  });

  it('refuses the requester approving their own request', () => {
    expect(refusal(() => decideApproval({ type: 'ApproveRequest', data: { operatorId: 'op_a' }, metadata: later }, pending))).toEqual({
      code: 'FORBIDDEN',
      fields: ['operator'],
    });
  });

  it('refuses an approver related to the requester by issuance (one he issued, or one up his chain)', () => {
    expect(
      refusal(() =>
        decideApproval({ type: 'ApproveRequest', data: { operatorId: 'op_made_by_a', relatedOperatorIds: ['op_root', 'op_a'] }, metadata: later }, pending),
      ),
    ).toEqual({ code: 'FORBIDDEN', fields: ['operator'] });
    const granted = onlyEvent(
      decideApproval({ type: 'ApproveRequest', data: { operatorId: 'op_b', relatedOperatorIds: ['op_root'] }, metadata: later }, pending),
    );
    expect(granted).toEqual({ type: 'ApprovalGranted', data: { operatorId: 'op_b', at: later.now } });
  });

  it('is approved once by a second operator; a retry is no new event; it can no longer be rejected', () => {
    const granted = onlyEvent(decideApproval({ type: 'ApproveRequest', data: { operatorId: 'op_b' }, metadata: later }, pending));
    expect(granted).toEqual({ type: 'ApprovalGranted', data: { operatorId: 'op_b', at: later.now } });
    const approved = evolveApproval(pending, granted) as OperatorApproval;
    expect(decideApproval({ type: 'ApproveRequest', data: { operatorId: 'op_b' }, metadata: later }, approved)).toEqual([]);
    expect(refusal(() => decideApproval({ type: 'RejectRequest', data: { operatorId: 'op_c', reason: 'no' }, metadata: later }, approved))).toEqual({
      code: 'VALIDATION_ERROR',
      fields: ['approval_id'],
    });
  });

  it('is rejected with a reason, after which it cannot be approved', () => {
    expect(refusal(() => decideApproval({ type: 'RejectRequest', data: { operatorId: 'op_b', reason: ' ' }, metadata: later }, pending))).toEqual({
      code: 'VALIDATION_ERROR',
      fields: ['reason'],
    });
    const rejected = evolveApproval(
      pending,
      onlyEvent(decideApproval({ type: 'RejectRequest', data: { operatorId: 'op_b', reason: 'no contract' }, metadata: later }, pending)),
    ) as OperatorApproval;
    expect(rejected).toMatchObject({ status: 'rejected', decidedBy: 'op_b', decisionReason: 'no contract' });
    expect(refusal(() => decideApproval({ type: 'ApproveRequest', data: { operatorId: 'op_c' }, metadata: later }, rejected))).toEqual({
      code: 'VALIDATION_ERROR',
      fields: ['approval_id'],
    });
  });

  it('lapses at its expiry: no approval after it', () => {
    expect(approvalStatusAt(pending, expiresAt)).toBe('expired');
    expect(refusal(() => decideApproval({ type: 'ApproveRequest', data: { operatorId: 'op_b' }, metadata: { now: expiresAt } }, pending))).toEqual({
      code: 'VALIDATION_ERROR',
      fields: ['approval_id'],
    });
  });

  it('answers an unknown approval with NOT_FOUND', () => {
    expect(refusal(() => decideApproval({ type: 'ApproveRequest', data: { operatorId: 'op_b' }, metadata: later }, null))).toEqual({
      code: 'NOT_FOUND',
      fields: ['approval_id'],
    });
  });
});
