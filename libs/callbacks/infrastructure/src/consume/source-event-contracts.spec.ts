/**
 * Goal: an event the routing table makes a callback of is checked against its contract's payload
 * class before routing, and one that fails is poison naming the event and the field; events no
 * route names are left alone, and optional fields added to a payload since its version may be
 * absent. Method: routableEvent on envelopes as the producers publish them, then broken ones.
 */
import 'reflect-metadata';
import { CALLBACK_ROUTES } from '@mp/callbacks-domain';
import { createEnvelope, PoisonMessageError } from '@mp/shared-messaging';
import { routableEvent } from './source-events.consumer';

const at = '2026-01-01T00:05:00.000Z';
const order = {
  order_id: 'A-1',
  direction: 'incoming',
  status: 'SUCCEEDED',
  sub_status: null,
  amount: '1500.50',
  fee: '0.00',
  currency: 'RUB',
  country: 'RU',
  method: 'bank_card',
  callback_url: 'https://shop.example/cb',
  failure_reason: null,
  expires_at: at,
  created_at: at,
  updated_at: at,
};
const succeeded = {
  merchantId: 'mch_1',
  orderId: 'A-1',
  direction: 'incoming',
  status: 'SUCCEEDED',
  amountMinor: '150050',
  feeMinor: '0',
  currency: 'RUB',
  agentId: 'agt_1',
  version: 4,
  occurredAt: at,
  order,
};
const dispute = { dispute_id: 'dsp_1', order_id: 'A-1', status: 'ACCEPTED' };
const envelope = (type: string, data: unknown, schemaVersion = 1) =>
  createEnvelope({ type, schemaVersion, source: 'test', subject: 'merchant:mch_1', data, correlationId: 'req_1' });

describe('source events checked against their contracts', () => {
  it('passes an outcome as published, with or without the optional members added since version 1', () => {
    const plain = envelope('PaymentOrderSucceeded', succeeded);
    expect(routableEvent(CALLBACK_ROUTES, 'payments.order.events', plain)).toBe(plain);
    const withExtras = envelope('PaymentOrderSucceeded', { ...succeeded, order: { ...order, return_url: null, metadata: { ref: '7' } }, somethingNewer: true });
    expect(routableEvent(CALLBACK_ROUTES, 'payments.order.events', withExtras)).toBe(withExtras);
    const opened = envelope('DisputeOpened', {
      merchantId: 'mch_1',
      orderId: 'A-1',
      disputeId: 'dsp_1',
      version: 1,
      settledAmountMinor: null,
      occurredAt: at,
      dispute,
    });
    expect(routableEvent(CALLBACK_ROUTES, 'disputes.events', opened)).toBe(opened);
  });

  it('leaves alone what no route names, unchecked', () => {
    expect(routableEvent(CALLBACK_ROUTES, 'payments.order.events', envelope('PaymentOrderCreated', { nothing: 'checked' }))).toBeNull();
    expect(routableEvent(CALLBACK_ROUTES, 'withdrawals.events', envelope('WithdrawalRequested', {}))).toBeNull();
  });

  it('calls an outcome without its snapshot or version poison, naming the event and the field', () => {
    const noSnapshot = envelope('DisputeAcceptedVisible', { merchantId: 'mch_1', disputeId: 'dsp_1', version: 2 });
    expect(() => routableEvent(CALLBACK_ROUTES, 'disputes.events', noSnapshot)).toThrow(PoisonMessageError);
    expect(() => routableEvent(CALLBACK_ROUTES, 'disputes.events', noSnapshot)).toThrow(
      `malformed DisputeAcceptedVisible ${noSnapshot.id}: orderId is required`,
    );
    // The internal, pre-external event shape.
    const internal = envelope('PaymentOrderSucceeded', { merchantId: 'mch_1', orderId: 'A-1', status: 'SUCCEEDED' });
    expect(() => routableEvent(CALLBACK_ROUTES, 'payments.order.events', internal)).toThrow(/version is required.*order is required/);
    expect(() =>
      routableEvent(CALLBACK_ROUTES, 'payments.order.events', envelope('PaymentOrderSucceeded', { ...succeeded, order: { ...order, callback_url: 7 } })),
    ).toThrow(/order\.callback_url/);
    expect(() => routableEvent(CALLBACK_ROUTES, 'payments.order.events', envelope('PaymentOrderSucceeded', succeeded, 2))).toThrow(
      'unsupported schema version 2 of PaymentOrderSucceeded',
    );
  });
});
