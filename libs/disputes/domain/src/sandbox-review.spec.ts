import { sandboxReviewOf } from './sandbox-review';

const dispute = (orderAmountMinor: bigint, disputedMinor: bigint | null) => ({
  orderAmountMinor,
  evidence: { amountMinor: disputedMinor, comment: null, receipt: null, submittedAt: '2026-01-01T00:00:00.000Z' },
});

describe('sandbox dispute review', () => {
  it('accepts a disputed amount not ending in 01', () => {
    expect(sandboxReviewOf(dispute(100001n, 100000n)).decision).toBe('ACCEPTED');
    expect(sandboxReviewOf(dispute(100000n, null)).decision).toBe('ACCEPTED');
  });

  it('rejects a disputed amount ending in 01, the order amount when the merchant gave none', () => {
    expect(sandboxReviewOf(dispute(100000n, 50001n))).toEqual({ decision: 'REJECTED', reason: expect.stringContaining('ending in 01') });
    expect(sandboxReviewOf(dispute(100001n, null)).decision).toBe('REJECTED');
  });
});
