import type { Delivery, Dispute, Order } from '../api/types';
import { orderTimeline, streamTimeline } from './timeline';

const order = {
  order_id: 'A-1',
  direction: 'incoming',
  status: 'SUCCEEDED',
  sub_status: null,
  created_at: '2026-01-31T10:00:00.000Z',
  updated_at: '2026-01-31T10:05:00.000Z',
  failure_reason: null,
} as Order;

const delivery = (id: string, createdAt: string, eventType: string): Delivery => ({
  delivery_id: id,
  event_id: `e-${id}`,
  event_type: eventType,
  order_id: 'A-1',
  url: 'https://shop.example/cb',
  status: 'succeeded',
  attempt_count: 1,
  last_attempt_at: createdAt,
  last_response_code: 200,
  next_attempt_at: null,
  created_at: createdAt,
});

describe('orderTimeline', () => {
  it('puts the order, its callbacks and its dispute in time order', () => {
    const dispute = {
      dispute_id: 'dsp_1',
      created_at: '2026-01-31T10:02:00.000Z',
      review: { decision: 'ACCEPTED', reason: 'receipt matches', settled_amount: '10.00', reviewed_at: '2026-01-31T10:04:00.000Z' },
    } as Dispute;
    const events = orderTimeline(
      order,
      [delivery('m2', '2026-01-31T10:05:01.000Z', 'payment.succeeded'), delivery('m1', '2026-01-31T10:01:00.000Z', 'payment.pending')],
      dispute,
    );
    expect(events.map((event) => event.what)).toEqual([
      'Order created (pay-in)',
      'Callback payment.pending',
      'Dispute dsp_1 opened',
      'Dispute accepted',
      'Last change: SUCCEEDED',
      'Callback payment.succeeded',
    ]);
    expect(events[3]?.detail).toBe('receipt matches');
  });

  it('orders by instant, not by text, when offsets differ', () => {
    const events = orderTimeline({ ...order, updated_at: order.created_at }, [delivery('m1', '2026-01-31T12:30:00+03:00', 'payment.pending')], null);
    // 12:30+03:00 is 09:30Z: before the order's 10:00Z creation.
    expect(events.map((event) => event.what)).toEqual(['Callback payment.pending', 'Order created (pay-in)']);
  });

  it('has no "last change" entry for an order never changed, and says why a failed one failed', () => {
    expect(orderTimeline({ ...order, updated_at: order.created_at }, [], null)).toHaveLength(1);
    const failed = orderTimeline({ ...order, direction: 'outgoing', status: 'FAILED', failure_reason: 'account closed' }, [], null);
    expect(failed[0]?.what).toBe('Order created (payout)');
    expect(failed[1]).toEqual({ at: order.updated_at, what: 'Last change: FAILED', detail: 'account closed' });
  });
});

describe('streamTimeline', () => {
  it('lists every event of the stream, marking those in the state shown at the chosen instant', () => {
    const read = {
      as_of: '2026-01-31T10:03:00.000Z',
      version: 2,
      recorded_at: '2026-01-31T10:02:00.000Z',
      state: null,
      events: [
        { version: 1, type: 'IncomingPaymentCreated', recorded_at: '2026-01-31T10:00:00.000Z' },
        { version: 2, type: 'PaymentOrderAgentAssigned', recorded_at: '2026-01-31T10:02:00.000Z' },
        { version: 3, type: 'PaymentOrderSucceeded', recorded_at: '2026-01-31T10:05:00.000Z' },
      ],
    };
    expect(streamTimeline(read)).toEqual([
      { at: '2026-01-31T10:00:00.000Z', what: 'incoming payment created', version: 1, folded: true },
      { at: '2026-01-31T10:02:00.000Z', what: 'payment order agent assigned', version: 2, folded: true },
      { at: '2026-01-31T10:05:00.000Z', what: 'payment order succeeded', version: 3, folded: false },
    ]);
  });
});
