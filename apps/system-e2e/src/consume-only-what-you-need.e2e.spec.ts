/**
 * Goal (consume only what you need): each event consumer declares exactly the types
 * it acts on, and passes over every other type on the message's type header, without decoding
 * it, without an inbox claim or a transaction, while the types it declares are handled as
 * before. Method: the real system; messages written straight to each event topic with kafkajs,
 * whose values are not JSON, each with a type header: every consumer that decodes one
 * dead-letters it (poison), one that passes it over leaves no trace. So the dead letters of each
 * type count the consumers that declare it, and a last message that every consumer of the topic
 * declares (on the same key, so after the others in every group) says when to count. Then a
 * pay-in through to success: its progress (created, assigned, reported paid) goes on
 * payments.order.progress, which only disputes reads, and its success on payments.order.events;
 * the declared types still reach the ledger, disputes and the callback dispatcher, and the
 * dispatcher's metrics show that it was sent the success alone.
 */
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { createOperator, registerAgent, SystemUnderTest, type RegisteredAgent, type SignedClient } from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { disputesKnow } from './disputable-orders';
import { incomingPayment, newOrderId } from './fixtures';
import { envelopesOnTopic } from './topic-envelopes';

/** The order events whose facts disputes keeps, on either order topic: all but the payer's report. */
const DISPUTES_ORDER_FACTS = [
  'PaymentOrderCreated',
  'PaymentOrderAgentAssigned',
  'PaymentOrderSucceeded',
  'PaymentOrderFailed',
  'PaymentOrderCancelled',
  'PaymentOrderExpired',
];

/** Who consumes each event topic and which types each declares (the consumers' `@ConsumeTopicInBatches(topic, { types })`). */
const DECLARED: Record<string, Record<string, readonly string[]>> = {
  'payments.order.events': {
    'ledger payment-events': ['PaymentOrderCreated', 'PaymentOrderSucceeded', 'PaymentOrderFailed', 'PaymentOrderCancelled', 'PaymentOrderExpired'],
    'disputes order-events': [...DISPUTES_ORDER_FACTS, 'PaymentOrderDisputeOutcomeApplied'],
    'callbacks source-events': ['PaymentOrderSucceeded', 'PaymentOrderFailed', 'PaymentOrderCancelled', 'PaymentOrderExpired'],
  },
  'payments.order.progress': {
    'disputes order-progress': DISPUTES_ORDER_FACTS,
  },
  'withdrawals.events': {
    'ledger withdrawal-events': ['WithdrawalRequested', 'WithdrawalCompleted', 'WithdrawalFailed'],
    'callbacks source-events': ['WithdrawalCompleted', 'WithdrawalFailed'],
  },
  'disputes.events': {
    'payments dispute-events': ['DisputeOpened', 'DisputeAccepted', 'DisputeRejected'],
    'callbacks source-events': ['DisputeOpened', 'DisputeAcceptedVisible', 'DisputeRejectedVisible'],
  },
};

/** Per topic: the types to send (a type no one has yet included) and the last one, which every consumer of the topic declares. */
const SENT: Record<string, { types: string[]; last: string }> = {
  'payments.order.events': {
    types: [
      'PaymentOrderPayerReportedPaid',
      'PaymentOrderAgentAssigned',
      'PaymentOrderCreated',
      'PaymentOrderDisputeOutcomeApplied',
      'PaymentOrderSomethingNew',
    ],
    last: 'PaymentOrderSucceeded',
  },
  'payments.order.progress': {
    types: ['PaymentOrderPayerReportedPaid', 'PaymentOrderDisputeOutcomeApplied', 'PaymentOrderSomethingNew'],
    last: 'PaymentOrderCreated',
  },
  'withdrawals.events': { types: ['WithdrawalRequested', 'WithdrawalSomethingNew'], last: 'WithdrawalFailed' },
  'disputes.events': { types: ['DisputeEvidenceAdded', 'DisputeRejected', 'DisputeRejectedVisible'], last: 'DisputeOpened' },
};

const consumersDeclaring = (topic: string, type: string) =>
  Object.keys(DECLARED[topic] ?? {}).filter((consumer) => DECLARED[topic]?.[consumer]?.includes(type));

describe('event consumers decode only the types they declare', () => {
  let system: SystemUnderTest;
  let kafka: Kafka;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    kafka = new Kafka({ clientId: 'consume-only-what-you-need', brokers: (process.env['KAFKA_BROKERS'] ?? '').split(','), logLevel: logLevel.NOTHING });
  });
  afterAll(async () => system?.stop());

  /** The type header of every dead letter on `key` in the topic's dead-letter topic, once `done` holds for them. */
  async function deadLetterTypes(topic: string, key: string, done: (types: string[]) => boolean): Promise<string[]> {
    const consumer = kafka.consumer({ groupId: `${system.runId}.dlq-reader.${randomUUID()}`, maxWaitTimeInMs: 200 });
    const types: string[] = [];
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [`${system.runId}.${topic}.dlq`], fromBeginning: true });
      await consumer.run({
        eachMessage: async ({ message }) => {
          if (message.key?.toString() === key) types.push(String(message.headers?.['message-type']));
        },
      });
      return await eventually(() => [...types], done, `dead letters of ${topic}`, 60_000);
    } finally {
      await consumer.disconnect();
    }
  }

  it.each(Object.keys(SENT))('on %s, each consumer passes over the types it does not declare without decoding them', async (topic) => {
    const { types, last } = SENT[topic] as { types: string[]; last: string };
    const consumers = Object.keys(DECLARED[topic] ?? {});
    expect(consumersDeclaring(topic, last)).toEqual(consumers);
    const key = `undecodable-${randomUUID()}`;
    const producer = kafka.producer();
    await producer.connect();
    try {
      // Not JSON: any consumer that decodes one of these dead-letters it at once.
      await producer.send({
        topic: `${system.runId}.${topic}`,
        acks: -1,
        messages: [...types, last].map((type) => ({ key, value: `not json { ${type}`, headers: { 'message-type': type } })),
      });
    } finally {
      await producer.disconnect();
    }
    const letters = await deadLetterTypes(topic, key, (seen) => seen.filter((type) => type === last).length >= consumers.length);
    const byType = Object.fromEntries([...types, last].map((type) => [type, letters.filter((letter) => letter === type).length]));
    expect(byType).toEqual(Object.fromEntries([...types, last].map((type) => [type, consumersDeclaring(topic, type).length])));
  });

  describe('a pay-in', () => {
    let merchant: SignedClient;
    let agent: RegisteredAgent;

    beforeAll(async () => {
      merchant = await system.createClient('Declared types shop');
      const operator = await createOperator(system);
      agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    });

    /** The callback dispatcher's count of messages by topic and outcome (messaging_consumed_messages_total). */
    async function dispatcherConsumed(): Promise<Record<string, number>> {
      const text = await (await fetch(`${system.callbacksUrl}/metrics`)).text();
      const counts: Record<string, number> = {};
      for (const [, labels, value] of text.matchAll(/^messaging_consumed_messages_total\{([^}]*)\} (\d+)$/gm)) {
        const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(labels ?? '')?.[1];
        if (label('topic') === 'payments.order.events') counts[label('outcome') ?? ''] = Number(value);
      }
      return counts;
    }

    it('sends its progress to disputes alone and its success to the ledger, disputes and the callback dispatcher', async () => {
      const before = await dispatcherConsumed();
      const orderId = newOrderId('declared');
      const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 1000 }));
      expect(created.status).toBe(201);
      const token = String(created.body.redirect_url).split('/pay/')[1];
      expect((await fetch(`${system.gatewayUrl}/pay/${token}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
      // Disputes acts on the assignment: the agent is among the facts its rules read.
      await disputesKnow(system, merchant, orderId, true);
      expect((await fetch(`${system.gatewayUrl}/pay/${token}/paid`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
      const confirmed = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {});
      expect(confirmed.status).toBe(200);

      // The ledger credits the success; the dispatcher records its callback.
      await eventually(
        async () =>
          (await merchant.get('/v2/merchant/balances')).body.settlement.find((entry: { currency: string }) => entry.currency === 'RUB')?.available ?? 0,
        (available) => available > 0,
        'the pay-in credited',
      );
      await eventually(
        () =>
          system.query<{ callback_type: string }>('callbacks', 'SELECT callback_type FROM callback_deliveries WHERE merchant_id = $1 AND subject_id = $2', [
            merchant.credentials.merchantId,
            orderId,
          ]),
        (rows) => rows.length === 1 && rows[0]?.callback_type === 'payment.succeeded',
        'the callback recorded',
      );
      // Created, assigned, reported paid went on the progress topic, so the dispatcher had only the success to take.
      const after = await eventually(dispatcherConsumed, (counts) => (counts['handled'] ?? 0) - (before['handled'] ?? 0) >= 1, 'the dispatcher counts');
      expect((after['skipped_undecoded'] ?? 0) - (before['skipped_undecoded'] ?? 0)).toBe(0);
      expect((after['skipped_decoded'] ?? 0) - (before['skipped_decoded'] ?? 0)).toBe(0);
      expect((after['handled'] ?? 0) - (before['handled'] ?? 0)).toBe(1);
      const subject = `merchant:${merchant.credentials.merchantId}/order:${orderId}`;
      const typesOn = async (topic: string) =>
        (await envelopesOnTopic(system.runId, topic)).filter((envelope) => envelope.subject === subject).map((envelope) => envelope.type);
      expect(await typesOn('payments.order.progress')).toEqual(['PaymentOrderCreated', 'PaymentOrderAgentAssigned', 'PaymentOrderPayerReportedPaid']);
      expect(await typesOn('payments.order.events')).toEqual(['PaymentOrderSucceeded']);
    });
  });
});
