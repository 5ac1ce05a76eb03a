import { createEnvelope, PoisonMessageError } from '@mp/shared-messaging';
import { PAYMENT_ORDER_DISPUTE_EVENT_TYPES, payoutHoldId } from '@mp/contracts-payments';
import { ledgerCommandFor, payoutHoldAttachedBy } from './payment-event.mapping';

const now = new Date('2026-11-22T10:00:00.000Z');
/** An external event as payments publishes it; the ledger reads its identity and money. */
const snapshot = { order_id: 'A-1', callback_url: 'https://shop.example/cb', created_at: now.toISOString() };
const order = {
  merchantId: 'mch_1',
  orderId: 'A-1',
  status: 'SUCCEEDED',
  amountMinor: '10000',
  feeMinor: '250',
  currency: 'RUB',
  occurredAt: now.toISOString(),
  version: 3,
  agentId: 'ag',
  order: snapshot,
};
const event = (type: string, data: Record<string, unknown>, schemaVersion = 1) =>
  createEnvelope({ type, schemaVersion, source: 'payments', subject: 'merchant:mch_1/order:A-1', data, correlationId: 'req_1' });

describe('external payment-order events → ledger commands', () => {
  it('keeps the payout hold id format stable: holds placed by earlier releases must still resolve', () => {
    expect(payoutHoldId('mch_1', 'P-1')).toBe('payout:mch_1:P-1');
  });

  it('credits a succeeded pay-in with its amount and fee', () => {
    expect(ledgerCommandFor(event('PaymentOrderSucceeded', { ...order, direction: 'incoming', status: 'SUCCEEDED' }), now)).toEqual({
      merchantId: 'mch_1',
      currency: 'RUB',
      command: { type: 'CreditPayIn', data: { orderId: 'A-1', amountMinor: 10000n, feeMinor: 250n, reason: 'payin_succeeded' }, metadata: { now } },
    });
  });

  it('posts a succeeded payout’s hold and voids a failed, cancelled or expired one', () => {
    const outgoing = { ...order, orderId: 'P-1', direction: 'outgoing' };
    expect(ledgerCommandFor(event('PaymentOrderSucceeded', outgoing), now)?.command).toEqual({
      type: 'PostHold',
      data: { holdId: 'payout:mch_1:P-1' },
      metadata: { now },
    });
    for (const type of ['PaymentOrderFailed', 'PaymentOrderCancelled', 'PaymentOrderExpired']) {
      expect(ledgerCommandFor(event(type, outgoing), now)?.command).toEqual({ type: 'VoidHold', data: { holdId: 'payout:mch_1:P-1' }, metadata: { now } });
    }
  });

  it('ignores events that move no money', () => {
    for (const type of ['PaymentOrderFailed', 'PaymentOrderCancelled', 'PaymentOrderExpired', 'PaymentOrderPayerReportedPaid', 'PaymentOrderAgentAssigned']) {
      expect(ledgerCommandFor(event(type, { ...order, direction: 'incoming' }), now)).toBeNull();
    }
    expect(ledgerCommandFor(event('PaymentOrderCreated', { nothing: 'checked' }), now)).toBeNull();
    expect(ledgerCommandFor(event('SomethingNew', {}, 7), now)).toBeNull();
  });

  it('ignores payments’ acknowledgement of a dispute review: an accepted dispute is credited through its PaymentOrderSucceeded only', () => {
    const applied = event(PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied, {
      merchantId: 'mch_1',
      orderId: 'A-1',
      disputeId: 'dsp_1',
      disputeVersion: 2,
      occurredAt: now.toISOString(),
    });
    expect(ledgerCommandFor(applied, now)).toBeNull();
    expect(payoutHoldAttachedBy(applied)).toBeNull();
  });

  it('treats a malformed event that matters as poison', () => {
    const cases: Array<Record<string, unknown>> = [
      { ...order, direction: 'sideways' },
      { ...order, direction: 'incoming', amountMinor: '0' },
      { ...order, direction: 'incoming', amountMinor: 10000 },
      { ...order, direction: 'incoming', feeMinor: '-1' },
      { ...order, direction: 'incoming', feeMinor: '10001' },
      { ...order, direction: 'incoming', currency: 'XXX' },
      { ...order, direction: 'incoming', merchantId: '' },
      { ...order, direction: 'outgoing', orderId: undefined },
    ];
    for (const data of cases) expect(() => ledgerCommandFor(event('PaymentOrderSucceeded', data), now)).toThrow(PoisonMessageError);
    expect(() => ledgerCommandFor(event('PaymentOrderSucceeded', { ...order, direction: 'incoming' }, 2), now)).toThrow(/schema version 2/);
    // The poison names the event and the field.
    expect(() => ledgerCommandFor(event('PaymentOrderSucceeded', { ...order, direction: 'incoming', feeMinor: '10001' }), now)).toThrow(
      /malformed PaymentOrderSucceeded .*: feeMinor must not exceed amountMinor/,
    );
  });

  it('names the payout hold an order creation vouches for, and only for creations', () => {
    expect(payoutHoldAttachedBy(event('PaymentOrderCreated', { ...order, orderId: 'P-1', direction: 'outgoing' }))).toEqual({
      merchantId: 'mch_1',
      currency: 'RUB',
      holdId: 'payout:mch_1:P-1',
    });
    expect(payoutHoldAttachedBy(event('PaymentOrderCreated', { ...order, direction: 'incoming' }))).toBeNull();
    expect(payoutHoldAttachedBy(event('PaymentOrderSucceeded', { ...order, direction: 'outgoing' }))).toBeNull();
    expect(() => payoutHoldAttachedBy(event('PaymentOrderCreated', { nothing: 'here' }))).toThrow(PoisonMessageError);
  });

  it("passes a pay-in's creation over unchecked: it attaches nothing and moves nothing, whatever else it says", () => {
    const oddPayIn = event('PaymentOrderCreated', { direction: 'incoming', amountMinor: 'not money' });
    expect(payoutHoldAttachedBy(oddPayIn)).toBeNull();
    expect(ledgerCommandFor(oddPayIn, now)).toBeNull();
    // A payout's creation is still checked: it attaches a hold.
    expect(() => payoutHoldAttachedBy(event('PaymentOrderCreated', { direction: 'outgoing', amountMinor: 'not money' }))).toThrow(PoisonMessageError);
  });
});
