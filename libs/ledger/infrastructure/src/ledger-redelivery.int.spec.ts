/**
 * Goal: every effect of a payment-order event happens exactly once. Each event type the
 * ledger consumes arrives three times: the original, a redelivery with the same envelope id
 * (the outbox republishing after a crash) and a copy with a new id for the same order (a
 * retried command upstream). The balances, events and postings are those of one delivery,
 * and the auditor agrees. Events that can never apply go to the dead-letter topic without
 * blocking the ones behind them; an event the ledger has no business with (payments'
 * acknowledgement of a dispute review) is neither applied nor dead-lettered. Method: the real
 * ledger service on real PostgreSQL and Kafka; events published to payments.order.events as the
 * payments outbox publishes them.
 */
import { createEnvelope, deadLetterTopicOf, KafkaMessageBroker, type MessageEnvelope } from '@mp/shared-messaging';
import { PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION, PAYMENT_ORDER_DISPUTE_EVENT_TYPES, PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { LedgerTestService, newMerchantId, paymentOrderEvent, type OrderFacts, type PaymentEventType } from '@mp/ledger-testing';
import { eventually } from '@mp/shared-testing';

/** The original, a redelivery (same id) and a copy with a new id, in that order. */
function threeTimes(type: PaymentEventType, order: OrderFacts): { envelopes: MessageEnvelope[]; ids: string[] } {
  const original = paymentOrderEvent(type, order);
  const copy = paymentOrderEvent(type, order);
  return { envelopes: [original, { ...original }, copy], ids: [original.id, copy.id] };
}

describe('ledger: redelivered payment-order events', () => {
  let ledger: LedgerTestService;

  beforeAll(async () => {
    ledger = await LedgerTestService.start();
  });
  afterAll(async () => ledger?.stop());

  it('applies each consumed event once, whether redelivered with the same id or copied with a new one', async () => {
    const merchantId = newMerchantId('redelivery');
    const order = (orderId: string, direction: 'incoming' | 'outgoing', amountMinor: string, feeMinor: string): OrderFacts => ({
      merchantId,
      orderId,
      direction,
      amountMinor,
      feeMinor,
      currency: 'RUB',
    });
    const payIn = order('A-1', 'incoming', '50000', '500');
    const payouts = {
      succeeded: order('P-1', 'outgoing', '10000', '100'),
      failed: order('P-2', 'outgoing', '5000', '0'),
      cancelled: order('P-3', 'outgoing', '2000', '50'),
      expired: order('P-4', 'outgoing', '1000', '0'),
    };

    const credit = threeTimes('PaymentOrderSucceeded', payIn);
    await ledger.publish(credit.envelopes);
    await ledger.eventuallyConsumed(credit.ids);
    await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '495.00', frozen: '0.00' }], deposit: [] }, 1);

    // The payments service places each payout's hold before the order exists; it retries too.
    for (const payout of Object.values(payouts)) {
      const holdId = `payout:${merchantId}:${payout.orderId}`;
      expect((await ledger.placeHold(merchantId, holdId, payout.amountMinor, payout.feeMinor)).status).toBe(201);
      expect((await ledger.placeHold(merchantId, holdId, payout.amountMinor, payout.feeMinor)).status).toBe(200);
    }
    await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '313.50', frozen: '181.50' }], deposit: [] }, 1);

    const outcomes = [
      threeTimes('PaymentOrderSucceeded', payouts.succeeded),
      threeTimes('PaymentOrderFailed', payouts.failed),
      threeTimes('PaymentOrderCancelled', payouts.cancelled),
      threeTimes('PaymentOrderExpired', payouts.expired),
    ];
    // Events that move no money, delivered twice as well: an incoming order's failure, an assignment.
    const noMoney = [
      paymentOrderEvent('PaymentOrderFailed', order('A-2', 'incoming', '7000', '0')),
      paymentOrderEvent('PaymentOrderExpired', order('A-3', 'incoming', '7000', '0')),
      paymentOrderEvent('PaymentOrderAgentAssigned', payIn),
    ];
    await ledger.publish([...outcomes.flatMap((outcome) => outcome.envelopes), ...noMoney, ...noMoney]);
    await ledger.eventuallyConsumed(outcomes.flatMap((outcome) => outcome.ids));

    // 495.00 credited; P-1 took 100.00 + 1.00; P-2, P-3 and P-4 came back.
    await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '394.00', frozen: '0.00' }], deposit: [] }, 1);
    const events = await ledger.query<{ event_type: string }>(`SELECT event_type FROM event_store WHERE stream_id = $1 ORDER BY stream_version`, [
      `ledger:${merchantId}:RUB`,
    ]);
    // The four outcomes travel on four orders' keys, so across partitions in any order.
    expect(events.map((event) => event.event_type).sort()).toEqual([
      'HoldPlaced',
      'HoldPlaced',
      'HoldPlaced',
      'HoldPlaced',
      'HoldPosted',
      'HoldVoided',
      'HoldVoided',
      'HoldVoided',
      'PayInCredited',
    ]);
    const postings = await ledger.query<{ code: string; amount_minor: string }>(`SELECT code, amount_minor::text FROM ledger_postings WHERE merchant_id = $1`, [
      merchantId,
    ]);
    expect(postings.map((posting) => `${posting.code} ${posting.amount_minor}`).sort()).toEqual([
      'HOLD_FEE 100',
      'HOLD_PLACED 1000',
      'HOLD_PLACED 10100',
      'HOLD_PLACED 2050',
      'HOLD_PLACED 5000',
      'HOLD_POSTED 10000',
      'HOLD_VOIDED 1000',
      'HOLD_VOIDED 2050',
      'HOLD_VOIDED 5000',
      'PAYIN_FEE 500',
      'PAYIN_SETTLED 49500',
    ]);
    const holds = await ledger.query<{ hold_id: string; status: string }>(`SELECT hold_id, status FROM ledger_holds WHERE merchant_id = $1 ORDER BY hold_id`, [
      merchantId,
    ]);
    expect(holds.map((hold) => `${hold.hold_id.split(':').pop()} ${hold.status}`)).toEqual(['P-1 posted', 'P-2 voided', 'P-3 voided', 'P-4 voided']);

    const report = await ledger.audit();
    expect(report.discrepancies).toEqual([]);
    expect(report.totalsByCurrency['RUB']).toEqual({
      settlement_available: '39400',
      settlement_frozen: '0',
      deposit: '0',
      fee_revenue: '600',
      clearing: '-40000',
      fx: '0',
    });
  });

  it('dead-letters events that can never apply, without blocking the ones behind them', async () => {
    const merchantId = newMerchantId('poison');
    const dlq: MessageEnvelope[] = [];
    const reader = new KafkaMessageBroker({
      clientId: 'dlq-reader',
      brokers: (process.env['KAFKA_BROKERS'] ?? '').split(','),
      namespace: ledger.runId,
      log: () => undefined,
    });
    await reader.connect();
    const subscription = await reader.subscribe({
      groupId: 'dlq-reader',
      topics: [deadLetterTopicOf(PAYMENTS_TOPICS.orderEvents)],
      startFrom: 'earliest',
      handler: async (message) => void dlq.push(message.envelope),
    });
    try {
      await subscription.ready;
      const credited = paymentOrderEvent('PaymentOrderSucceeded', {
        merchantId,
        orderId: 'A-1',
        direction: 'incoming',
        amountMinor: '10000',
        feeMinor: '0',
        currency: 'RUB',
      });
      // Same order, other amounts: a conflict for an operator, never a second credit.
      const conflicting = paymentOrderEvent('PaymentOrderSucceeded', {
        merchantId,
        orderId: 'A-1',
        direction: 'incoming',
        amountMinor: '99999',
        feeMinor: '0',
        currency: 'RUB',
      });
      // A payout whose hold was never placed.
      const holdless = paymentOrderEvent('PaymentOrderSucceeded', {
        merchantId,
        orderId: 'P-9',
        direction: 'outgoing',
        amountMinor: '100',
        feeMinor: '0',
        currency: 'RUB',
      });
      // Malformed: the fee exceeds the amount.
      const malformed = paymentOrderEvent('PaymentOrderSucceeded', {
        merchantId,
        orderId: 'A-2',
        direction: 'incoming',
        amountMinor: '100',
        feeMinor: '101',
        currency: 'RUB',
      });
      // Not the ledger's business, and no poison either: payments' acknowledgement of a dispute review.
      const disputeOutcomeApplied = createEnvelope({
        type: PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied,
        schemaVersion: PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION,
        source: 'payments',
        subject: `merchant:${merchantId}/order:A-1`,
        data: { merchantId, orderId: 'A-1', disputeId: 'dsp_1', disputeVersion: 2, occurredAt: new Date().toISOString() },
        correlationId: 'req_dispute',
      });
      const after = paymentOrderEvent('PaymentOrderSucceeded', {
        merchantId,
        orderId: 'A-1',
        direction: 'incoming',
        amountMinor: '10000',
        feeMinor: '0',
        currency: 'RUB',
      });
      await ledger.publish([credited, conflicting, holdless, malformed, disputeOutcomeApplied, after]);
      await ledger.eventuallyConsumed([credited.id, after.id]);

      await eventually(() => dlq.length >= 3, Boolean, 'three dead letters', 20_000);
      expect(dlq.map((envelope) => envelope.id).sort()).toEqual([conflicting.id, holdless.id, malformed.id].sort());
      await ledger.eventuallyBalances(merchantId, { settlement: [{ currency: 'RUB', available: '100.00', frozen: '0.00' }], deposit: [] }, 1);
      expect((await ledger.audit()).discrepancies).toEqual([]);
    } finally {
      await subscription.stop();
      await reader.disconnect();
    }
  });
});
