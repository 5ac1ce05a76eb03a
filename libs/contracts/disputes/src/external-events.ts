import type { DisputeView } from './api';

/**
 * External events of the disputes context, on `DISPUTES_TOPICS.events`. They carry no secret
 * (no receipt content, only its metadata) and the dispute's state object at that version, so
 * the callback dispatcher can send `dispute.opened/accepted/rejected` without a lookup.
 * A retried (reopened) dispute publishes DisputeOpened again: for every consumer it is open.
 *
 * Read-your-writes for the merchant (spec 4.9 rule 4): a DisputeOpened caused by the gateway's
 * open command carries that command's `replyTo` in its envelope (and the command's id as its
 * causation id). Payments, which owns the order's reported status, answers the gateway there
 * with `{outcome: 'accepted', dispute}` in the transaction that applies the PENDING overlay, so
 * the merchant's 201 leaves only once every read of the order says PENDING. Likewise payments
 * publishes `PaymentOrderDisputeOutcomeApplied` (payments.order.events) once it has applied a
 * review's outcome, and only then do the dispute's reads show it.
 */
export const DISPUTE_EXTERNAL_EVENT_TYPES = {
  opened: 'DisputeOpened',
  accepted: 'DisputeAccepted',
  rejected: 'DisputeRejected',
} as const;

export type DisputeExternalEventType = (typeof DISPUTE_EXTERNAL_EVENT_TYPES)[keyof typeof DISPUTE_EXTERNAL_EVENT_TYPES];

export const DISPUTE_EXTERNAL_EVENT_SCHEMA_VERSION = 1;

export interface DisputeExternalEventData {
  merchantId: string;
  orderId: string;
  disputeId: string;
  /** Position of the dispute's stream after this change; receivers drop anything older. */
  version: number;
  /** ACCEPTED only: what the order settles for, in minor units of its currency. */
  settledAmountMinor: string | null;
  occurredAt: string;
  dispute: DisputeView;
}

export interface DisputeExternalEvent {
  type: DisputeExternalEventType;
  data: DisputeExternalEventData;
}
