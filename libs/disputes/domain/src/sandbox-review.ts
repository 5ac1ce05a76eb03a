import type { ExistingDispute } from './dispute.decider';

/** What the sandbox reviewer says when it rejects, as the dispute's review shows it. */
export const SANDBOX_REJECT_REASON = 'sandbox: rejected by the simulated agent (disputed amount ending in 01)';
export const SANDBOX_ACCEPT_REASON = 'sandbox: accepted by the simulated agent';

/**
 * The sandbox's review of a test-mode merchant's dispute (docs/api/sandbox.md), by the same
 * digits as its orders: a disputed amount (the one the merchant gave, else the order's) ending
 * in 01 minor units is rejected, any other accepted.
 */
export function sandboxReviewOf(dispute: Pick<ExistingDispute, 'evidence' | 'orderAmountMinor'>): { decision: 'ACCEPTED' | 'REJECTED'; reason: string } {
  const disputedMinor = dispute.evidence.amountMinor ?? dispute.orderAmountMinor;
  return disputedMinor % 100n === 1n ? { decision: 'REJECTED', reason: SANDBOX_REJECT_REASON } : { decision: 'ACCEPTED', reason: SANDBOX_ACCEPT_REASON };
}
