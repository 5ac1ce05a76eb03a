import type { Delivery, Dispute, Order, StateAsOf } from '../api/types';

export interface TimelineEvent {
  at: string;
  what: string;
  detail?: string;
}

/**
 * What the APIs say happened to an order, oldest first: its creation and last change (the order
 * object has no history of its own), each callback sent for it, its dispute's opening and review.
 * Sorted by instant, so times written with different offsets still line up.
 */
export function orderTimeline(order: Order, deliveries: Delivery[], dispute: Dispute | null): TimelineEvent[] {
  const events: TimelineEvent[] = [{ at: order.created_at, what: `Order created (${order.direction === 'incoming' ? 'pay-in' : 'payout'})` }];
  if (order.updated_at !== order.created_at) {
    const lastChange: TimelineEvent = { at: order.updated_at, what: `Last change: ${order.status}${order.sub_status ? ` (${order.sub_status})` : ''}` };
    if (order.failure_reason) lastChange.detail = order.failure_reason;
    events.push(lastChange);
  }
  for (const delivery of deliveries)
    events.push({ at: delivery.created_at, what: `Callback ${delivery.event_type}`, detail: `${delivery.status}, ${delivery.attempt_count} attempt(s)` });
  if (dispute) {
    events.push({ at: dispute.created_at, what: `Dispute ${dispute.dispute_id} opened` });
    if (dispute.review) {
      const review: TimelineEvent = { at: dispute.review.reviewed_at, what: `Dispute ${dispute.review.decision.toLowerCase()}` };
      if (dispute.review.reason) review.detail = dispute.review.reason;
      events.push(review);
    }
  }
  // A stable sort: events at the same instant keep the order above (the order before its callbacks).
  return events.sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
}

/** One event of a stream on the operator's timeline: the instant to ask the state at, and whether the shown state includes it. */
export interface StreamTimelineEvent {
  at: string;
  what: string;
  version: number;
  /** Folded into the state shown (recorded at or before its instant). */
  folded: boolean;
}

/** Event type names as words: `PaymentOrderAgentAssigned` → `payment order agent assigned`. */
export function eventTypeWords(type: string): string {
  return type.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
}

/**
 * Every event of an order's stream from a read as of an instant, oldest first, each marked as
 * in the shown state or after it: the operator picks any of them (or another instant) to see
 * the state then.
 */
export function streamTimeline(read: StateAsOf<unknown>): StreamTimelineEvent[] {
  return read.events.map((event) => ({
    at: event.recorded_at,
    what: eventTypeWords(event.type),
    version: event.version,
    folded: event.version <= read.version,
  }));
}
