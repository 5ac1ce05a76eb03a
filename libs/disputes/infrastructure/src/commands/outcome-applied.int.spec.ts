/**
 * Goal: a reviewed dispute shows its outcome once payments says the order carries it
 * (docs/api/endpoints.md), now that payments says so with its own event PaymentOrderDisputeOutcomeApplied on
 * `payments.order.events` instead of a command on `disputes.commands` (only the
 * gateway writes command topics: docs/operations/kafka-security.md). The event is applied once, with no inbox (a redelivery
 * publishes no second outcome and writes no inbox row), an acknowledgement of a
 * version the dispute has moved past changes nothing, a malformed one is poison; the command
 * `RecordDisputeOutcomeApplied` that payments sent on `disputes.commands` before that is no longer
 * a command disputes knows.
 * The outcome merchants are called back about is published in the same transaction, once.
 * Method: the disputes migrations on a private real PostgreSQL, disputes opened and reviewed
 * through the command core the service runs, messages handed to the service's own consumers.
 */
import { randomUUID } from 'node:crypto';
import { DISPUTE_COMMAND_SCHEMA_VERSION, DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES, DISPUTES_TOPICS, type DisputeExternalEventData } from '@mp/contracts-disputes';
import { PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION, PAYMENT_ORDER_DISPUTE_EVENT_TYPES, paymentOrderKey, PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { migratedPrivateDatabase, recordStatements } from '@mp/shared-data-access-postgres';
import { createEnvelope, PoisonMessageError, type MessageEnvelope } from '@mp/shared-messaging';
import type { DataSource } from 'typeorm';
import { DISPUTES_MIGRATIONS } from '../disputes.module';
import { findDisputeView } from '../persistence/dispute.projection';
import { DisputeCommandIntake } from './dispute-command.intake';
import { OrderEventsConsumer } from './dispute-consumers';
import { handleDisputeCommand } from './dispute.stream';

const MERCHANT = 'mch_ack';
const NOW = new Date();
const clock = { now: () => NOW };

describe('disputes showing a review once payments has applied it, on real Postgres', () => {
  let dataSource: DataSource;
  let orderEvents: OrderEventsConsumer;
  let commands: DisputeCommandIntake;
  let statements: string[];

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('doa', DISPUTES_MIGRATIONS);
    statements = recordStatements(dataSource);
    orderEvents = new OrderEventsConsumer(dataSource);
    commands = new DisputeCommandIntake(
      dataSource,
      clock,
      {
        commandPartitions: 1,
        testClockEnabled: false,
        receiptOrphanGraceMs: 60_000,
        receiptSweepIntervalMs: 60_000,
        reviewWindowHours: 72,
      },
      { existingTopics: async (topics) => new Set(topics), publish: async () => undefined },
    );
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  /** Opens a dispute on an incoming order and reviews it: version 2 of its stream, shown as OPEN until payments answers. */
  async function reviewed(orderId: string, decision: 'ACCEPTED' | 'REJECTED'): Promise<string> {
    const disputeId = `dsp_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const order = { direction: 'incoming' as const, createdAt: NOW.toISOString(), agentId: 'agt_1', amountMinor: 100000n, currency: 'RUB' };
    const causation = { id: randomUUID(), correlationId: 'req_test' };
    await dataSource.transaction((manager) =>
      handleDisputeCommand(
        manager,
        MERCHANT,
        orderId,
        {
          type: 'OpenDispute',
          data: { merchantId: MERCHANT, orderId, amountMinor: null, comment: 'paid', receipt: null },
          metadata: { now: NOW, order, newDisputeId: disputeId, reviewWindowHours: 72 },
        },
        causation,
      ),
    );
    await dataSource.transaction((manager) =>
      handleDisputeCommand(
        manager,
        MERCHANT,
        orderId,
        { type: 'ReviewDispute', data: { decision, reviewer: { role: 'operator', id: 'op_1' }, reason: null }, metadata: { now: NOW } },
        causation,
      ),
    );
    expect(await statusOf(disputeId)).toBe('OPEN');
    return disputeId;
  }

  const statusOf = async (disputeId: string) => (await findDisputeView(dataSource.manager, MERCHANT, disputeId)).status;
  const outcomeApplied = (
    orderId: string,
    disputeId: string,
    disputeVersion: unknown,
    schemaVersion = PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION,
  ): MessageEnvelope =>
    createEnvelope({
      type: PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied,
      schemaVersion,
      source: 'payments',
      subject: `merchant:${MERCHANT}/order:${orderId}`,
      data: { merchantId: MERCHANT, orderId, disputeId, disputeVersion, occurredAt: NOW.toISOString() },
      correlationId: 'req_test',
    });
  const onOrderEvents = (...envelopes: MessageEnvelope[]) =>
    orderEvents.consume(
      envelopes.map((envelope, offset) => ({ topic: PAYMENTS_TOPICS.orderEvents, partition: 0, offset: String(offset), key: `${MERCHANT}/x`, envelope })),
    );
  const inboxRows = async (consumer: string) =>
    Number((await dataSource.query(`SELECT count(*) AS count FROM inbox WHERE consumer = $1`, [consumer]))[0].count);

  it('shows the outcome once PaymentOrderDisputeOutcomeApplied arrives on payments.order.events, and a redelivery changes nothing', async () => {
    const accepted = await reviewed('A-accepted', 'ACCEPTED');
    const rejected = await reviewed('A-rejected', 'REJECTED');
    const acceptedApplied = outcomeApplied('A-accepted', accepted, 2);
    const before = await inboxRows('disputes.order-events');

    await onOrderEvents(acceptedApplied);
    await onOrderEvents(acceptedApplied);
    // A redelivery in the same batch as the first delivery, too.
    const rejectedApplied = outcomeApplied('A-rejected', rejected, 2);
    await onOrderEvents(rejectedApplied, rejectedApplied);

    expect([await statusOf(accepted), await statusOf(rejected)]).toEqual(['ACCEPTED', 'REJECTED']);
    expect([(await visibleOutcomes('A-accepted')).length, (await visibleOutcomes('A-rejected')).length]).toEqual([1, 1]);
    // Idempotent by itself: no inbox row per event.
    expect(await inboxRows('disputes.order-events')).toBe(before);
    // Not an order's facts: nothing of it lands where the rules read orders.
    expect(await dataSource.query(`SELECT * FROM dispute_orders WHERE merchant_id = $1`, [MERCHANT])).toEqual([]);
  });

  it('applies a batch of order events in one go: each order’s newest facts, the acknowledgement, a redelivered one changing nothing', async () => {
    const disputeId = await reviewed('A-batch', 'ACCEPTED');
    const fact = (orderId: string, version: number, status: string) =>
      createEnvelope({
        type: version === 1 ? 'PaymentOrderCreated' : 'PaymentOrderSucceeded',
        schemaVersion: 1,
        source: 'payments',
        subject: `merchant:${MERCHANT}/order:${orderId}`,
        data: {
          merchantId: MERCHANT,
          orderId,
          direction: 'incoming',
          status,
          amountMinor: '1500',
          feeMinor: '0',
          currency: 'RUB',
          agentId: 'agt_1',
          version,
          occurredAt: NOW.toISOString(),
          order: { callback_url: 'https://shop.example/cb', created_at: NOW.toISOString() },
        },
        correlationId: 'req_test',
      });
    const created = fact('B-1', 1, 'PENDING');
    await onOrderEvents(created);
    statements.length = 0;
    await onOrderEvents(created, fact('B-1', 3, 'SUCCEEDED'), fact('B-2', 1, 'PENDING'), fact('B-1', 2, 'PENDING'), outcomeApplied('A-batch', disputeId, 2));
    // One transaction, no inbox statement, the facts of all four events in one statement (a part of the intake's one write statement).
    expect(
      statements
        .filter((statement) => /^START TRANSACTION|INSERT INTO inbox|INSERT INTO dispute_orders/.test(statement))
        .map((statement) => statement.slice(0, 25)),
    ).toEqual(['START TRANSACTION', 'WITH w0 AS (INSERT INTO d']);

    expect(await dataSource.query(`SELECT order_id, status, order_version FROM dispute_orders WHERE merchant_id = $1 ORDER BY order_id`, [MERCHANT])).toEqual([
      { order_id: 'B-1', status: 'SUCCEEDED', order_version: 3 },
      { order_id: 'B-2', status: 'PENDING', order_version: 1 },
    ]);
    expect(await statusOf(disputeId)).toBe('ACCEPTED');
    await dataSource.query(`DELETE FROM dispute_orders WHERE merchant_id = $1`, [MERCHANT]);
  });

  /** The visible-outcome events in the outbox for one order: what the callback dispatcher sends `dispute.accepted/rejected` from. */
  const visibleOutcomes = async (orderId: string): Promise<Array<MessageEnvelope<string, DisputeExternalEventData>>> =>
    (
      await dataSource.query(`SELECT envelope FROM outbox WHERE topic = $1 AND message_key = $2 AND envelope->>'type' LIKE '%Visible' ORDER BY position`, [
        DISPUTES_TOPICS.events,
        paymentOrderKey(MERCHANT, orderId),
      ])
    ).map((row: { envelope: MessageEnvelope<string, DisputeExternalEventData> }) => row.envelope);

  it('publishes the outcome for the callback in the transaction that shows it, once, with the dispute as it reads then', async () => {
    const disputeId = await reviewed('A-visible', 'ACCEPTED');
    // Reviewed but not yet applied by payments: nothing for merchants to hear of.
    expect(await visibleOutcomes('A-visible')).toEqual([]);
    await onOrderEvents(outcomeApplied('A-visible', disputeId, 2));
    // The same acknowledgement again under another message id (past the inbox): nothing more to tell.
    await onOrderEvents(outcomeApplied('A-visible', disputeId, 2));
    const [visible, ...more] = await visibleOutcomes('A-visible');
    expect(more).toEqual([]);
    expect(visible?.type).toBe(DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES.accepted);
    expect(visible?.data).toMatchObject({ merchantId: MERCHANT, orderId: 'A-visible', disputeId, version: 2, settledAmountMinor: '100000' });
    expect(visible?.data.dispute).toEqual(await findDisputeView(dataSource.manager, MERCHANT, disputeId));
  });

  it('still tells of a rejection the merchant reopened before payments applied it, without showing it over the reopen', async () => {
    const disputeId = await reviewed('A-reopened', 'REJECTED');
    const order = { direction: 'incoming' as const, createdAt: NOW.toISOString(), agentId: 'agt_1', amountMinor: 100000n, currency: 'RUB' };
    await dataSource.transaction((manager) =>
      handleDisputeCommand(
        manager,
        MERCHANT,
        'A-reopened',
        {
          type: 'OpenDispute',
          data: { merchantId: MERCHANT, orderId: 'A-reopened', amountMinor: null, comment: 'again', receipt: null },
          metadata: { now: NOW, order, newDisputeId: disputeId, reviewWindowHours: 72 },
        },
        { id: randomUUID(), correlationId: 'req_test' },
      ),
    );
    await onOrderEvents(outcomeApplied('A-reopened', disputeId, 2));
    expect(await statusOf(disputeId)).toBe('OPEN');
    const visible = await visibleOutcomes('A-reopened');
    expect(visible.map((envelope) => [envelope.type, envelope.data.version, envelope.data.dispute.status])).toEqual([
      [DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES.rejected, 2, 'REJECTED'],
    ]);
  });

  it('changes nothing for an acknowledgement of a version the dispute has moved past', async () => {
    const disputeId = await reviewed('A-stale', 'ACCEPTED');
    await onOrderEvents(outcomeApplied('A-stale', disputeId, 1));
    expect(await statusOf(disputeId)).toBe('OPEN');
    expect(await visibleOutcomes('A-stale')).toEqual([]);
  });

  it('dead-letters a malformed one or an unknown schema version, and writes nothing of it', async () => {
    const disputeId = await reviewed('A-malformed', 'ACCEPTED');
    const before = await inboxRows('disputes.order-events');
    await expect(onOrderEvents(outcomeApplied('A-malformed', disputeId, 'two'))).rejects.toThrow(PoisonMessageError);
    await expect(onOrderEvents(outcomeApplied('A-malformed', disputeId, 2, 2))).rejects.toThrow(/unsupported schema version 2/);
    expect(await statusOf(disputeId)).toBe('OPEN');
    expect(await inboxRows('disputes.order-events')).toBe(before);
  });

  it('dead-letters a RecordDisputeOutcomeApplied on disputes.commands as an unknown command, and writes nothing of it', async () => {
    const disputeId = await reviewed('A-retired', 'REJECTED');
    const retired = createEnvelope({
      type: 'RecordDisputeOutcomeApplied',
      schemaVersion: DISPUTE_COMMAND_SCHEMA_VERSION,
      source: 'payments',
      subject: `merchant:${MERCHANT}/order:A-retired`,
      data: { merchantId: MERCHANT, orderId: 'A-retired', disputeId, version: 2 },
      correlationId: 'req_test',
    });
    const before = await inboxRows('disputes.commands');
    await expect(commands.handle(retired)).rejects.toThrow(new PoisonMessageError('unknown command type RecordDisputeOutcomeApplied'));
    expect(await statusOf(disputeId)).toBe('OPEN');
    expect(await inboxRows('disputes.commands')).toBe(before);
  });
});
