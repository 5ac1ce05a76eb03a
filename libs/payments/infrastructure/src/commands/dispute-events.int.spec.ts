/**
 * Goal: payments tells disputes that a review's outcome is on the order through its own topic
 * (only the gateway's Kafka principal writes command topics: docs/operations/kafka-security.md): a DisputeRejected ends
 * the order's PENDING overlay and, in that transaction, puts a PaymentOrderDisputeOutcomeApplied
 * on `payments.order.events` (keyed by the order) in the outbox, and nothing for
 * `disputes.commands`; a redelivery adds nothing. On upgrade, a legacy RecordDisputeOutcomeApplied
 * still waiting in the outbox becomes that event, so payments' relay never needs to write
 * `disputes.commands` again. An open with a gateway replica waiting for it is answered on that
 * replica's reply topic once the overlay has committed, and through no outbox row.
 * Method: payments' migrations on a private real PostgreSQL, the consumer class the service
 * runs, the outbox rows its relay would publish, and the answers taken where the messaging port's
 * `publish` would take them.
 */
import { randomUUID } from 'node:crypto';
import { DISPUTE_EXTERNAL_EVENT_SCHEMA_VERSION, DISPUTE_EXTERNAL_EVENT_TYPES, DISPUTES_TOPICS, type DisputeExternalEventData } from '@mp/contracts-disputes';
import { PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION, PAYMENT_ORDER_DISPUTE_EVENT_TYPES, PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import { createEnvelope, type MessageEnvelope, type OutgoingMessage } from '@mp/shared-messaging';
import type { DataSource } from 'typeorm';
import type { LedgerHolds } from '../ledger/ledger-holds.port';
import { PAYMENTS_MIGRATIONS } from '../payments.module';
import { PaymentsDisputeOutcomeAsEvent1700000021000 } from '../persistence/dispute-outcome-event.migration';
import { DisputeEventsConsumer } from './dispute-events.consumer';

const MERCHANT = 'mch_outcome';
const NOW = new Date('2026-03-01T10:00:00.000Z');
/** A rejection settles nothing, so the ledger is never called; any call would fail the test. */
const NO_LEDGER = new Proxy({}, { get: (_target, name) => () => Promise.reject(new Error(`unexpected ledger call ${String(name)}`)) }) as LedgerHolds;

describe('payments applying a dispute review, on real Postgres', () => {
  let dataSource: DataSource;
  let consumer: DisputeEventsConsumer;
  const answers: OutgoingMessage[] = [];

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('pdo', PAYMENTS_MIGRATIONS);
    const replyPort = {
      existingTopics: async (topics: string[]) => new Set(topics),
      publish: async (messages: OutgoingMessage[]) => void answers.push(...messages),
    };
    consumer = new DisputeEventsConsumer(dataSource, NO_LEDGER, { now: () => NOW }, replyPort);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  /** A declined pay-in with an open dispute at dispute version 1, as payments' projection holds it. */
  async function disputedOrder(orderId: string): Promise<void> {
    await dataSource.query(
      `INSERT INTO payment_orders (merchant_id, order_id, direction, status, amount_minor, fee_minor, currency, country, method, callback_url,
                                   agent_id, expires_at, created_at, updated_at, stream_version, open_dispute, dispute_version)
       VALUES ($1, $2, 'incoming', 'FAILED', 100000, 2100, 'RUB', 'RU', 'bank_card', 'https://shop.example/cb', 'agt_1', now(), now(), now(), 4, true, 1)`,
      [MERCHANT, orderId],
    );
  }

  const reviewEvent = (orderId: string, type: string, version: number): MessageEnvelope => {
    const data: Partial<DisputeExternalEventData> = {
      merchantId: MERCHANT,
      orderId,
      disputeId: 'dsp_000000000000000000000042',
      version,
      settledAmountMinor: null,
      occurredAt: NOW.toISOString(),
      dispute: { dispute_id: 'dsp_000000000000000000000042', order_id: orderId } as DisputeExternalEventData['dispute'],
    };
    return createEnvelope({
      type,
      schemaVersion: DISPUTE_EXTERNAL_EVENT_SCHEMA_VERSION,
      source: 'disputes',
      subject: `merchant:${MERCHANT}/order:${orderId}`,
      data,
      correlationId: 'req_review',
      causationId: randomUUID(),
    });
  };
  const consume = (...envelopes: MessageEnvelope[]) =>
    consumer.consume(
      envelopes.map((envelope, offset) => ({ topic: DISPUTES_TOPICS.events, partition: 0, offset: String(offset), key: `${MERCHANT}/x`, envelope })),
    );
  const outboxOf = (orderId: string) =>
    dataSource.query<Array<{ topic: string; message_key: string; envelope: MessageEnvelope }>>(
      `SELECT topic, message_key, envelope FROM outbox WHERE envelope->>'subject' = $1 ORDER BY position`,
      [`merchant:${MERCHANT}/order:${orderId}`],
    );

  it('publishes PaymentOrderDisputeOutcomeApplied on payments.order.events and nothing to disputes.commands when a rejection is applied, once', async () => {
    const orderId = 'A-rejected';
    await disputedOrder(orderId);
    const rejected = reviewEvent(orderId, DISPUTE_EXTERNAL_EVENT_TYPES.rejected, 2);

    await consume(rejected);
    await consume(rejected);

    const [order] = await dataSource.query(`SELECT open_dispute, dispute_version FROM payment_orders WHERE merchant_id = $1 AND order_id = $2`, [
      MERCHANT,
      orderId,
    ]);
    expect(order).toEqual({ open_dispute: false, dispute_version: 2 });
    const outbox = await outboxOf(orderId);
    expect(outbox.filter((row) => row.topic === DISPUTES_TOPICS.commands)).toEqual([]);
    expect(outbox).toEqual([{ topic: PAYMENTS_TOPICS.orderEvents, message_key: `${MERCHANT}/${orderId}`, envelope: expect.any(Object) }]);
    expect(outbox[0]?.envelope).toMatchObject({
      type: PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied,
      schemaVersion: PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION,
      source: 'payments',
      correlationId: 'req_review',
      causationId: rejected.id,
      data: { merchantId: MERCHANT, orderId, disputeId: 'dsp_000000000000000000000042', disputeVersion: 2, occurredAt: NOW.toISOString() },
    });
  });

  it("answers an open's waiting gateway replica once the order shows it, through no outbox row", async () => {
    const orderId = 'C-opened';
    await disputedOrder(orderId);
    await dataSource.query(`UPDATE payment_orders SET open_dispute = false WHERE merchant_id = $1 AND order_id = $2`, [MERCHANT, orderId]);
    const opened = { ...reviewEvent(orderId, DISPUTE_EXTERNAL_EVENT_TYPES.opened, 2), replyTo: 'gateway.replies.test' };
    answers.length = 0;

    await consume(opened);
    // The answer leaves after the consumer returns (it does not wait for it).
    await new Promise((resolve) => setImmediate(resolve));

    const [order] = await dataSource.query(`SELECT open_dispute FROM payment_orders WHERE merchant_id = $1 AND order_id = $2`, [MERCHANT, orderId]);
    expect(order).toEqual({ open_dispute: true });
    expect(await outboxOf(orderId)).toEqual([]);
    expect(answers).toEqual([{ topic: 'gateway.replies.test', key: 'req_review', envelope: expect.any(Object) }]);
    expect(answers[0].envelope).toMatchObject({
      type: 'CommandReply',
      causationId: opened.causationId,
      data: { outcome: 'accepted', dispute: { dispute_id: 'dsp_000000000000000000000042', order_id: orderId } },
    });
  });

  it('applies a batch of review outcomes in one transaction, in order, each once', async () => {
    await disputedOrder('B-1');
    await disputedOrder('B-2');
    const first = reviewEvent('B-1', DISPUTE_EXTERNAL_EVENT_TYPES.rejected, 2);
    await consume(first);
    await consume(first, reviewEvent('B-2', DISPUTE_EXTERNAL_EVENT_TYPES.rejected, 2), reviewEvent('B-1', DISPUTE_EXTERNAL_EVENT_TYPES.opened, 3));

    const orders = await dataSource.query(
      `SELECT order_id, open_dispute, dispute_version FROM payment_orders WHERE merchant_id = $1 AND order_id LIKE 'B-%' ORDER BY order_id`,
      [MERCHANT],
    );
    expect(orders).toEqual([
      { order_id: 'B-1', open_dispute: true, dispute_version: 3 },
      { order_id: 'B-2', open_dispute: false, dispute_version: 2 },
    ]);
    // One acknowledgement per applied rejection; the reopen has nobody waiting (no replyTo).
    expect((await outboxOf('B-1')).map((row) => row.envelope.causationId)).toEqual([first.id]);
    expect(await outboxOf('B-2')).toHaveLength(1);
  });

  it('on upgrade, turns a RecordDisputeOutcomeApplied still waiting in the outbox into the event, and leaves published ones alone', async () => {
    const legacy = (orderId: string) =>
      createEnvelope({
        type: 'RecordDisputeOutcomeApplied',
        schemaVersion: 1,
        source: 'payments',
        subject: `merchant:${MERCHANT}/order:${orderId}`,
        data: { merchantId: MERCHANT, orderId, disputeId: 'dsp_000000000000000000000043', version: 4 },
        correlationId: 'req_legacy',
        causationId: '5d0c3c39-0b7e-4d0b-9a38-1c1f1c8f0c01',
        traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      });
    const waiting = legacy('A-waiting');
    const published = legacy('A-published');
    const insert = (topic: string, envelope: MessageEnvelope, publishedAt: string | null) =>
      dataSource.query(`INSERT INTO outbox (message_id, topic, message_key, envelope, created_at, published_at) VALUES ($1, $2, $3, $4, $5, $6)`, [
        envelope.id,
        topic,
        `${MERCHANT}/${(envelope.data as { orderId: string }).orderId}`,
        JSON.stringify(envelope),
        '2026-02-01T09:00:00.000Z',
        publishedAt,
      ]);
    await insert(DISPUTES_TOPICS.commands, waiting, null);
    await insert(DISPUTES_TOPICS.commands, published, '2026-02-01T09:00:01.000Z');

    await new PaymentsDisputeOutcomeAsEvent1700000021000().up(dataSource.createQueryRunner());

    const rows = await dataSource.query<Array<{ topic: string; message_key: string; envelope: MessageEnvelope }>>(
      `SELECT topic, message_key, envelope FROM outbox WHERE message_id = ANY($1::uuid[]) ORDER BY position`,
      [[waiting.id, published.id]],
    );
    expect(rows[0]).toEqual({
      topic: PAYMENTS_TOPICS.orderEvents,
      message_key: `${MERCHANT}/A-waiting`,
      envelope: {
        id: waiting.id,
        type: PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied,
        schemaVersion: PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION,
        source: 'payments',
        subject: waiting.subject,
        time: waiting.time,
        correlationId: 'req_legacy',
        causationId: waiting.causationId,
        traceparent: waiting.traceparent,
        data: {
          merchantId: MERCHANT,
          orderId: 'A-waiting',
          disputeId: 'dsp_000000000000000000000043',
          disputeVersion: 4,
          occurredAt: '2026-02-01T09:00:00.000Z',
        },
      },
    });
    expect(rows[1]).toEqual({ topic: DISPUTES_TOPICS.commands, message_key: `${MERCHANT}/A-published`, envelope: published });
  });
});
