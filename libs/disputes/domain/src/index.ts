export { disputeDeadline, isWithinDisputeWindow } from './dispute-window';
export {
  decideDispute,
  DEFAULT_REVIEW_WINDOW_HOURS,
  DISPUTE_EVENT_SCHEMAS,
  disputeDecider,
  evolveDispute,
  initialDispute,
  toDisputeStreamId,
  type Dispute,
  type DisputeCommand,
  type DisputeEvent,
  type DisputeEvidence,
  type DisputeReceiptRef,
  type DisputeReviewer,
  type DisputeStatus,
  type DisputedOrderFacts,
  type ExistingDispute,
} from './dispute.decider';
export { SANDBOX_ACCEPT_REASON, SANDBOX_REJECT_REASON, sandboxReviewOf } from './sandbox-review';
