export { disputeDeadline, isWithinDisputeWindow } from './dispute-window';
export {
  decideDispute,
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
