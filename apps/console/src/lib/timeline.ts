import type { Delivery, Dispute, Order } from '../api/types';

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
  for (const delivery of deliveries) events.push({ at: delivery.created_at, what: `Callback ${delivery.event_type}`, detail: `${delivery.status}, ${delivery.attempt_count} attempt(s)` });
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
