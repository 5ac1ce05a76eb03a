import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import {
  FieldRule,
  IsIsoDateTime,
  IsJsonObject,
  IsKnownCurrency,
  IsMinorUnits,
  IsNonEmptyString,
  IsOneOf,
  IsStreamVersion,
  NotMoreThan,
} from '@mp/shared-util-validation';
import { PAYMENTS_TOPICS } from './topics';
import { PAYMENT_ORDER_STATUSES, type PaymentDirection, type PaymentOrderStatus, type PaymentOrderSubStatus } from './order-view';

/**
 * External events of the payments context: what other contexts (ledger, disputes, callback
 * dispatcher, later analytics) may rely on. They are published on `PAYMENTS_TOPICS.orderEvents`
 * or `PAYMENTS_TOPICS.orderProgress` (paymentOrderEventTopic), and are mapped explicitly from the
 * payments service's internal events, which never leave its own database.
 *
 * Why a separate contract: the internal events carry secrets (the payer-page token lets anyone
 * holding it mark a pay-in as paid; the recipient's full account number) and change whenever
 * the aggregate does. External events carry no secret and change only with a schema version.
 *
 * Every external event carries the order's identity, money fields in minor units, the stream
 * `version` after the change (receivers drop anything older than what they have seen) and a
 * `order` snapshot: the merchant-facing state object at that version, minus anything secret.
 */
export const PAYMENT_ORDER_EXTERNAL_EVENT_TYPES = {
  created: 'PaymentOrderCreated',
  agentAssigned: 'PaymentOrderAgentAssigned',
  payerReportedPaid: 'PaymentOrderPayerReportedPaid',
  succeeded: 'PaymentOrderSucceeded',
  failed: 'PaymentOrderFailed',
  cancelled: 'PaymentOrderCancelled',
  expired: 'PaymentOrderExpired',
} as const;

export type PaymentOrderExternalEventType = (typeof PAYMENT_ORDER_EXTERNAL_EVENT_TYPES)[keyof typeof PAYMENT_ORDER_EXTERNAL_EVENT_TYPES];

/**
 * The topic an external order event goes on. `payments.order.progress` takes what moves no money
 * and ends nothing: a pay-in's creation (a payout's creation holds the merchant's funds, so the
 * ledger needs it), an agent's assignment and the payer's report. Only disputes reads it. The
 * rest goes on `payments.order.events`, which the ledger and the callback dispatcher read too,
 * so neither fetches a message per pay-in created that it would pass over.
 */
export function paymentOrderEventTopic(
  type: PaymentOrderExternalEventType,
  direction: PaymentDirection,
): (typeof PAYMENTS_TOPICS)['orderEvents' | 'orderProgress'] {
  switch (type) {
    case PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.created:
      return direction === 'incoming' ? PAYMENTS_TOPICS.orderProgress : PAYMENTS_TOPICS.orderEvents;
    case PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.agentAssigned:
    case PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.payerReportedPaid:
      return PAYMENTS_TOPICS.orderProgress;
    default:
      return PAYMENTS_TOPICS.orderEvents;
  }
}

/** Bumped only on a breaking change; consumers upcast older versions. */
export const PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION = 1;

/**
 * The state object as merchants see it (endpoint 3, callbacks), without secrets: no
 * `redirect_url` (it embeds the payer-page token) and the recipient account only as its last
 * four characters.
 */
export interface PaymentOrderExternalView {
  order_id: string;
  direction: PaymentDirection;
  status: PaymentOrderStatus;
  sub_status: PaymentOrderSubStatus;
  /** Decimal strings with the currency's scale, so no precision is lost between services. */
  amount: string;
  fee: string;
  currency: string;
  country: string;
  method: string;
  callback_url: string;
  /** Outgoing orders: e.g. `•••• 1234`. */
  account_number_masked?: string;
  failure_reason: string | null;
  /**
   * Incoming orders: the order's own return URL, null when it has none. Added after version 1
   * as an optional member (no new schema version): events published before it lack it.
   */
  return_url?: string | null;
  /** The merchant's reference data (`{}` when none); optional like `return_url`, for the same reason. */
  metadata?: Record<string, string>;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export interface PaymentOrderExternalEventData {
  merchantId: string;
  orderId: string;
  direction: PaymentDirection;
  status: PaymentOrderStatus;
  amountMinor: string;
  feeMinor: string;
  currency: string;
  /** The agent handling the order, once one is assigned (disputes need to know). */
  agentId: string | null;
  /** Position of the order's stream after this change: 1 for creation, then +1 per event. */
  version: number;
  occurredAt: string;
  /** PaymentOrderSucceeded through an accepted dispute only: that dispute (the ledger books the credit as a dispute settlement). */
  settledByDisputeId?: string;
  order: PaymentOrderExternalView;
}

/** The snapshot's fields other contexts read (the callback dispatcher its URL, disputes its creation time); the rest passes unread. */
export class PaymentOrderExternalViewPayload {
  @IsString()
  callback_url!: string;

  @IsIsoDateTime()
  created_at!: string;
}

/**
 * What every consumer of an order event checks it against (its intake's `read`, see
 * PAYMENT_ORDER_EXTERNAL_EVENT_CONTRACT): the fields any of them reads. Optional members added
 * since version 1 (`settledByDisputeId`, the snapshot's `return_url` and `metadata`) may be absent.
 */
export class PaymentOrderExternalEventPayload {
  @IsNonEmptyString()
  merchantId!: string;

  @IsNonEmptyString()
  orderId!: string;

  @IsOneOf(['incoming', 'outgoing'])
  direction!: PaymentDirection;

  @IsOneOf(PAYMENT_ORDER_STATUSES)
  status!: PaymentOrderStatus;

  @IsMinorUnits('positive', 'currency')
  amountMinor!: string;

  @IsMinorUnits('non-negative', 'currency')
  @NotMoreThan('amountMinor', 'must not exceed amountMinor')
  feeMinor!: string;

  @IsKnownCurrency()
  currency!: string;

  @FieldRule('isAgentId', (value) => (value === null || (typeof value === 'string' && value !== '') ? null : 'must be an agent id or null'))
  agentId!: string | null;

  @IsStreamVersion()
  version!: number;

  @IsIsoDateTime()
  occurredAt!: string;

  @IsOptional()
  @IsNonEmptyString()
  settledByDisputeId?: string;

  @IsJsonObject()
  @ValidateNested()
  @Type(() => PaymentOrderExternalViewPayload)
  order!: PaymentOrderExternalViewPayload;
}

export interface PaymentOrderExternalEvent {
  type: PaymentOrderExternalEventType;
  data: PaymentOrderExternalEventData;
}

/**
 * Not a change of the order's state but a receipt of another context's decision, published on
 * the same topic and key (`<merchantId>/<orderId>`): payments has applied a dispute review's
 * outcome to the order (DisputeAccepted: the order settled by the dispute, whose
 * PaymentOrderSucceeded precedes this event on the partition; DisputeRejected: the PENDING
 * overlay ended). Disputes shows the review's outcome only once this arrives, so a merchant who
 * sees it and reads the order finds the order agreeing (spec 4.9 rule 4).
 *
 * Why an event of payments and not a command to disputes (it was `RecordDisputeOutcomeApplied`
 * on `disputes.commands` before issue 20): Kafka ACLs let only the gateway's principal write
 * command topics, and payments reports a fact about its own order, on its own topic, in the
 * transaction that applied it. Its own type list (not PAYMENT_ORDER_EXTERNAL_EVENT_TYPES) because
 * it carries no order snapshot: the ledger and the callback dispatcher, which act on named order
 * types only, ignore it.
 */
export const PAYMENT_ORDER_DISPUTE_EVENT_TYPES = {
  disputeOutcomeApplied: 'PaymentOrderDisputeOutcomeApplied',
} as const;

/** Bumped only on a breaking change, independently of the order events' version; consumers upcast older versions. */
export const PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION = 1;

/**
 * Which outcome it was is the dispute's own at `disputeVersion` (its DisputeAccepted or
 * DisputeRejected on `disputes.events`), not repeated here: one fact, one owner.
 */
export interface PaymentOrderDisputeOutcomeAppliedData {
  merchantId: string;
  orderId: string;
  disputeId: string;
  /**
   * Position of the dispute's stream (not the order's) at the DisputeAccepted or DisputeRejected
   * payments applied: disputes shows the outcome only if its stream is still there.
   */
  disputeVersion: number;
  occurredAt: string;
}

export class PaymentOrderDisputeOutcomeAppliedPayload {
  @IsStreamVersion()
  disputeVersion!: number;

  @IsNonEmptyString()
  disputeId!: string;

  @IsNonEmptyString()
  merchantId!: string;

  @IsNonEmptyString()
  orderId!: string;

  @IsIsoDateTime()
  occurredAt!: string;
}

/** The order events' payload classes by type, for the intakes that read them (`readEventPayload`). */
export const PAYMENT_ORDER_EXTERNAL_EVENT_CONTRACT = {
  schemaVersion: PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION,
  payloads: Object.fromEntries(Object.values(PAYMENT_ORDER_EXTERNAL_EVENT_TYPES).map((type) => [type, PaymentOrderExternalEventPayload])) as Record<
    PaymentOrderExternalEventType,
    typeof PaymentOrderExternalEventPayload
  >,
};

/** Payments' receipts of another context's decision, on the same topic with their own schema version. */
export const PAYMENT_ORDER_DISPUTE_EVENT_CONTRACT = {
  schemaVersion: PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION,
  payloads: { [PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied]: PaymentOrderDisputeOutcomeAppliedPayload },
};
