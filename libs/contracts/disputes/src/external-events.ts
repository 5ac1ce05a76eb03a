import { FieldRule, IsIsoDateTime, IsJsonObject, IsMinorUnits, IsNonEmptyString, IsStreamVersion } from '@mp/shared-util-validation';
import type { DisputeView } from './api';

/**
 * External events of the disputes context, on `DISPUTES_TOPICS.events`. They carry no secret
 * (no receipt content, only its metadata) and the dispute's state object at that version, so
 * the callback dispatcher can send `dispute.opened` without a lookup (and `dispute.accepted/rejected`
 * from DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES below).
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

/**
 * A review's outcome once merchants may read it: disputes publishes one, with the same data as
 * the review's DisputeAccepted/DisputeRejected, in the transaction that records payments'
 * acknowledgement (and projects the outcome when the stream has not moved on). The callback
 * dispatcher sends `dispute.accepted/rejected` from these, not from the review itself, so a
 * merchant who fetches the dispute on its callback reads the outcome it was told of. Payments
 * acts on the review events above and never reads these. The event id is derived from the
 * dispute stream and version, so a repeated acknowledgement makes the same event again and the
 * dispatcher's webhook id dedupes it.
 */
export const DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES = {
  accepted: 'DisputeAcceptedVisible',
  rejected: 'DisputeRejectedVisible',
} as const;

export type DisputeOutcomeVisibleEventType = (typeof DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES)[keyof typeof DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES];

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

/** What payments and the callback dispatcher check a dispute event against (DISPUTE_EXTERNAL_EVENT_CONTRACT); the snapshot passes as an object. */
export class DisputeExternalEventPayload {
  @IsNonEmptyString()
  merchantId!: string;

  @IsNonEmptyString()
  orderId!: string;

  @IsNonEmptyString()
  disputeId!: string;

  @IsStreamVersion()
  version!: number;

  @FieldRule('isSettledAmount', (value) =>
    value === null || (typeof value === 'string' && /^[1-9][0-9]*$/.test(value))
      ? null
      : 'must be a positive integer in minor units, as a decimal string, or null',
  )
  settledAmountMinor!: string | null;

  @IsIsoDateTime()
  occurredAt!: string;

  @IsJsonObject()
  dispute!: DisputeView;
}

/** An acceptance names what the order settles for. */
export class DisputeAcceptedPayload extends DisputeExternalEventPayload {
  @IsMinorUnits('positive')
  override settledAmountMinor!: string;
}

/** The dispute events' payload classes by type (the review's and the visible outcomes), for the intakes that read them (`readEventPayload`). */
export const DISPUTE_EXTERNAL_EVENT_CONTRACT = {
  schemaVersion: DISPUTE_EXTERNAL_EVENT_SCHEMA_VERSION,
  payloads: {
    [DISPUTE_EXTERNAL_EVENT_TYPES.opened]: DisputeExternalEventPayload,
    [DISPUTE_EXTERNAL_EVENT_TYPES.accepted]: DisputeAcceptedPayload,
    [DISPUTE_EXTERNAL_EVENT_TYPES.rejected]: DisputeExternalEventPayload,
    [DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES.accepted]: DisputeExternalEventPayload,
    [DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES.rejected]: DisputeExternalEventPayload,
  },
};

export interface DisputeExternalEvent {
  type: DisputeExternalEventType;
  data: DisputeExternalEventData;
}
