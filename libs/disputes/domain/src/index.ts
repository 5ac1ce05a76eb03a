export { disputeDeadline, isWithinDisputeWindow } from './dispute-window';
export {
  decideDispute,
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
