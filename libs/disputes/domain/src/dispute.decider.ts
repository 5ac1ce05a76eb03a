import type { Decider, EventSchemas } from '@mp/shared-decider';
import { DomainError } from '@mp/shared-util-errors';
import { formatAmountMinor } from '@mp/shared-util-money';
import { disputeDeadline, isWithinDisputeWindow } from './dispute-window';

/**
 * The dispute aggregate (spec 4.9, docs/api/states.md): OPEN → ACCEPTED | REJECTED, and a
 * REJECTED dispute reopened by the merchant's retry under the same `dispute_id`. One stream per
 * (merchant, incoming order), so concurrent opens on one order meet on one stream and optimistic
 * concurrency lets exactly one of them win.
 */

////////// State

export type DisputeStatus = 'OPEN' | 'ACCEPTED' | 'REJECTED';

export interface DisputeReceiptRef {
  receiptId: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
}

/** What the merchant attaches on open or retry; a retry replaces it, the old stays in history. */
export interface DisputeEvidence {
  amountMinor: bigint | null;
  comment: string | null;
  receipt: DisputeReceiptRef | null;
  submittedAt: string;
}

export interface DisputeReviewer {
  role: 'agent' | 'operator';
  id: string;
}

/** What the disputes service knows of the order, from the payments context's external events. */
export interface DisputedOrderFacts {
  direction: 'incoming' | 'outgoing';
  createdAt: string;
  agentId: string | null;
  amountMinor: bigint;
  currency: string;
}

export interface ExistingDispute {
  status: DisputeStatus;
  disputeId: string;
  merchantId: string;
  orderId: string;
  currency: string;
  orderAmountMinor: bigint;
  orderAgentId: string | null;
  evidence: DisputeEvidence;
  /** Evidence of earlier rounds, oldest first, for operators. */
  earlierEvidence: DisputeEvidence[];
  review: { decision: 'ACCEPTED' | 'REJECTED'; reviewer: DisputeReviewer; reason: string | null; settledAmountMinor: bigint | null; reviewedAt: string } | null;
  /** When the agent or operator should have reviewed it by (ISO); null once reviewed. */
  reviewDeadline: string | null;
  /** The merchant's reference data: set by the open, replaced by a reopen that sends some; never read to decide anything. */
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export type Dispute = { status: 'NotOpened' } | ExistingDispute;

export const initialDispute = (): Dispute => ({ status: 'NotOpened' });

////////// Commands

interface CommandMetadata {
  now: Date;
}

export interface OpenDispute {
  type: 'OpenDispute';
  /** `metadata` absent or null: none sent (an open stores `{}`, a reopen keeps the dispute's). */
  data: {
    merchantId: string;
    orderId: string;
    amountMinor: bigint | null;
    comment: string | null;
    receipt: DisputeReceiptRef | null;
    metadata?: Record<string, string> | null;
  };
  /**
   * `order` is null when the merchant has no such order; `newDisputeId` is used only on a first
   * open. `reviewWindowHours` (the service's DISPUTE_REVIEW_WINDOW_HOURS) fixes the review
   * deadline in the event, so a later change of the setting does not move open disputes.
   */
  metadata: CommandMetadata & { order: DisputedOrderFacts | null; newDisputeId: string; reviewWindowHours: number };
}

export interface ReviewDispute {
  type: 'ReviewDispute';
  data: { decision: 'ACCEPTED' | 'REJECTED'; reviewer: DisputeReviewer; reason: string | null };
  metadata: CommandMetadata;
}

export type DisputeCommand = OpenDispute | ReviewDispute;

////////// Events

interface EvidenceData {
  amountMinor: string | null;
  comment: string | null;
  receipt: DisputeReceiptRef | null;
}

export interface DisputeOpened {
  type: 'DisputeOpened';
  /** `metadata` since version 3 (`{}` for disputes opened before). */
  data: EvidenceData & {
    disputeId: string;
    merchantId: string;
    orderId: string;
    currency: string;
    orderAmountMinor: string;
    orderAgentId: string | null;
    occurredAt: string;
    reviewDeadline: string;
    metadata: Record<string, string>;
  };
}

export interface DisputeReopened {
  type: 'DisputeReopened';
  /** `metadata` since version 3: what the reopen sent, null when it sent none (the dispute keeps its own). */
  data: EvidenceData & { disputeId: string; occurredAt: string; reviewDeadline: string; metadata: Record<string, string> | null };
}

export interface DisputeAccepted {
  type: 'DisputeAccepted';
  data: { disputeId: string; reviewer: DisputeReviewer; reason: string | null; settledAmountMinor: string; occurredAt: string };
}

export interface DisputeRejected {
  type: 'DisputeRejected';
  data: { disputeId: string; reviewer: DisputeReviewer; reason: string | null; occurredAt: string };
}

export type DisputeEvent = DisputeOpened | DisputeReopened | DisputeAccepted | DisputeRejected;

////////// Decide

export function decideDispute(command: DisputeCommand, state: Dispute): DisputeEvent[] {
  switch (command.type) {
    case 'OpenDispute':
      return openDispute(command, state);
    case 'ReviewDispute':
      return reviewDispute(command, state);
    default: {
      const unknown: never = command;
      throw new Error(`unknown dispute command ${JSON.stringify(unknown)}`);
    }
  }
}

function openDispute(command: OpenDispute, state: Dispute): DisputeEvent[] {
  const { data, metadata } = command;
  const order = metadata.order;
  // Spec 4.9.1: an outgoing order is answered exactly like an order that does not exist.
  if (!order || order.direction !== 'incoming') throw new DomainError('ORDER_NOT_FOUND', 'No such incoming order');
  const evidence = { amountMinor: data.amountMinor?.toString() ?? null, comment: data.comment, receipt: data.receipt };
  const occurredAt = metadata.now.toISOString();
  const reviewDeadline = reviewDeadlineAfter(occurredAt, metadata.reviewWindowHours);

  if (!isWithinDisputeWindow(new Date(order.createdAt), metadata.now)) {
    throw rejected(
      'opened_too_late',
      `A dispute can be opened until ${disputeDeadline(new Date(order.createdAt)).toISOString()}, one calendar month (UTC) after the order was created`,
    );
  }
  if (!order.agentId) throw rejected('no_agent_assigned', 'No payment agent is assigned to this order, so there is no payment to dispute');
  if (state.status === 'OPEN' || state.status === 'ACCEPTED') {
    throw rejected(
      state.status === 'OPEN' ? 'dispute_already_open' : 'dispute_already_accepted',
      `The order already has an ${state.status} dispute ${state.disputeId}`,
      state.disputeId,
    );
  }
  // After the rules: a merchant whose order already has an accepted dispute learns that, not the cap.
  if (data.amountMinor !== null) assertWithinCap(data.amountMinor, order.amountMinor, state, order.currency);
  if (state.status === 'REJECTED')
    return [{ type: 'DisputeReopened', data: { ...evidence, disputeId: state.disputeId, occurredAt, reviewDeadline, metadata: data.metadata ?? null } }];
  return [
    {
      type: 'DisputeOpened',
      data: {
        ...evidence,
        disputeId: metadata.newDisputeId,
        merchantId: data.merchantId,
        orderId: data.orderId,
        currency: order.currency,
        orderAmountMinor: order.amountMinor.toString(),
        orderAgentId: order.agentId,
        occurredAt,
        reviewDeadline,
        metadata: data.metadata ?? {},
      },
    },
  ];
}

function reviewDispute(command: ReviewDispute, state: Dispute): DisputeEvent[] {
  if (state.status === 'NotOpened') throw new DomainError('DISPUTE_NOT_FOUND', 'No such dispute');
  const { data, metadata } = command;
  // The order's own agent or an operator reviews; any other agent is told the dispute does not exist.
  if (data.reviewer.role === 'agent' && data.reviewer.id !== state.orderAgentId) throw new DomainError('DISPUTE_NOT_FOUND', 'No such dispute');
  if (state.status !== 'OPEN') {
    if (state.review?.decision === data.decision) return [];
    throw new DomainError('ORDER_STATE_CONFLICT', `The dispute is ${state.status}, not OPEN`, [{ field: 'status', issue: state.status }]);
  }
  const occurredAt = metadata.now.toISOString();
  if (data.decision === 'REJECTED') {
    return [{ type: 'DisputeRejected', data: { disputeId: state.disputeId, reviewer: data.reviewer, reason: data.reason, occurredAt } }];
  }
  // docs/api/states.md: accepted settles the order for the disputed amount, or the order amount when none was given.
  const settledAmountMinor = state.evidence.amountMinor ?? state.orderAmountMinor;
  // Opens are capped since issue 17; a dispute opened before that with a larger amount must be
  // rejected (the merchant may reopen within the cap), never settled for more than the order.
  assertWithinCap(settledAmountMinor, state.orderAmountMinor, state, state.currency);
  return [
    {
      type: 'DisputeAccepted',
      data: { disputeId: state.disputeId, reviewer: data.reviewer, reason: data.reason, settledAmountMinor: settledAmountMinor.toString(), occurredAt },
    },
  ];
}

/**
 * What a dispute may still claim on its order: the order's amount less what accepted disputes on
 * it already settled. One stream per order and no open after an accepted dispute make the second
 * term zero today; it is spelled out so that a rule change cannot let two disputes settle more
 * than the order together.
 */
export function disputableAmountMinor(orderAmountMinor: bigint, state: Dispute): bigint {
  const alreadySettled = state.status === 'ACCEPTED' ? (state.review?.settledAmountMinor ?? 0n) : 0n;
  return orderAmountMinor > alreadySettled ? orderAmountMinor - alreadySettled : 0n;
}

function assertWithinCap(amountMinor: bigint, orderAmountMinor: bigint, state: Dispute, currency: string): void {
  const cap = disputableAmountMinor(orderAmountMinor, state);
  if (amountMinor <= cap) return;
  throw new DomainError('VALIDATION_ERROR', 'The dispute is not valid', [
    { field: 'amount', issue: `must be at most ${formatAmountMinor(cap, currency)} ${currency}: the order amount less what accepted disputes on it settled` },
  ]);
}

function rejected(reason: string, message: string, disputeId?: string): DomainError {
  return new DomainError('PAYMENT_REJECTED', message, [{ field: 'order_id', issue: reason }], disputeId ? { dispute_id: disputeId } : undefined);
}

////////// Evolve

export function evolveDispute(state: Dispute, event: DisputeEvent): Dispute {
  switch (event.type) {
    case 'DisputeOpened': {
      const { data } = event;
      return {
        status: 'OPEN',
        disputeId: data.disputeId,
        merchantId: data.merchantId,
        orderId: data.orderId,
        currency: data.currency,
        orderAmountMinor: BigInt(data.orderAmountMinor),
        orderAgentId: data.orderAgentId,
        evidence: toEvidence(data, data.occurredAt),
        earlierEvidence: [],
        review: null,
        reviewDeadline: data.reviewDeadline,
        metadata: data.metadata,
        createdAt: data.occurredAt,
        updatedAt: data.occurredAt,
      };
    }
    case 'DisputeReopened': {
      const dispute = existingForEvolve(state);
      return {
        ...dispute,
        status: 'OPEN',
        evidence: toEvidence(event.data, event.data.occurredAt),
        earlierEvidence: [...dispute.earlierEvidence, dispute.evidence],
        review: null,
        reviewDeadline: event.data.reviewDeadline,
        metadata: event.data.metadata ?? dispute.metadata,
        updatedAt: event.data.occurredAt,
      };
    }
    case 'DisputeAccepted': {
      const { data } = event;
      const review = {
        decision: 'ACCEPTED' as const,
        reviewer: data.reviewer,
        reason: data.reason,
        settledAmountMinor: BigInt(data.settledAmountMinor),
        reviewedAt: data.occurredAt,
      };
      return { ...existingForEvolve(state), status: 'ACCEPTED', review, reviewDeadline: null, updatedAt: data.occurredAt };
    }
    case 'DisputeRejected': {
      const { data } = event;
      const review = { decision: 'REJECTED' as const, reviewer: data.reviewer, reason: data.reason, settledAmountMinor: null, reviewedAt: data.occurredAt };
      return { ...existingForEvolve(state), status: 'REJECTED', review, reviewDeadline: null, updatedAt: data.occurredAt };
    }
    default: {
      const unknown: never = event;
      throw new Error(`unknown dispute event ${JSON.stringify(unknown)}`);
    }
  }
}

function toEvidence(data: EvidenceData, submittedAt: string): DisputeEvidence {
  return { amountMinor: data.amountMinor === null ? null : BigInt(data.amountMinor), comment: data.comment, receipt: data.receipt, submittedAt };
}

function existingForEvolve(state: Dispute): ExistingDispute {
  if (state.status === 'NotOpened') throw new Error('dispute event before DisputeOpened');
  return state;
}

/** The decider as a value, for the shared command core. */
export const disputeDecider: Decider<Dispute, DisputeCommand, DisputeEvent> = { decide: decideDispute, evolve: evolveDispute, initialState: initialDispute };

/** The review window before DISPUTE_REVIEW_WINDOW_HOURS existed, and that setting's default. */
export const DEFAULT_REVIEW_WINDOW_HOURS = 72;

const HOUR_MS = 3_600_000;

function reviewDeadlineAfter(openedAt: string, reviewWindowHours: number): string {
  return new Date(Date.parse(openedAt) + reviewWindowHours * HOUR_MS).toISOString();
}

/** Version 1 of an open or reopen had no deadline: it gets the default window from its own time. */
const withDefaultReviewDeadline = (data: { occurredAt: string }) => ({
  ...data,
  reviewDeadline: reviewDeadlineAfter(data.occurredAt, DEFAULT_REVIEW_WINDOW_HOURS),
});

/**
 * Stored schema versions of the dispute events. Version 2 of an open or reopen carries its review
 * deadline; version 3 the merchant's metadata: none for an open before, and a reopen
 * before kept the dispute's.
 */
export const DISPUTE_EVENT_SCHEMAS: EventSchemas<DisputeEvent> = {
  DisputeOpened: { version: 3, upcasters: { 1: withDefaultReviewDeadline, 2: (data: object) => ({ ...data, metadata: {} }) } },
  DisputeReopened: { version: 3, upcasters: { 1: withDefaultReviewDeadline, 2: (data: object) => ({ ...data, metadata: null }) } },
  DisputeAccepted: { version: 1 },
  DisputeRejected: { version: 1 },
};

/** One stream per disputed order: concurrent opens on one order meet here. */
export const toDisputeStreamId = (merchantId: string, orderId: string): string => `dispute:${merchantId}:${orderId}`;
