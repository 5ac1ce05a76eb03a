/**
 * Goal: a slow or failing dependency cannot make a consumer hold an unbounded backlog in memory
 * or stall partitions that have nothing to do with it. A partition whose message fails waits
 * paused (nothing more fetched from it), keeps its order and never dead-letters for an outage;
 * the other partitions keep moving; an unknown error still dead-letters after `attemptsMax`;
 * one fetch brings at most CONSUMER_PARTITION_FETCH_BYTES_MAX of a partition.
 * Method: the real Kafka adapter on a private namespace of the shared test broker.
 */
import { randomBytes } from 'node:crypto';
import { createEnvelope, type MessageEnvelope } from '../envelope';
import { eventually } from '@mp/shared-testing';
import type { ReceivedMessage } from '../messaging-port';
import { CONSUMER_PARTITION_FETCH_BYTES_MAX, KafkaMessageBroker } from './kafka-message-broker';

const runId = `r${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');

function event(data: unknown): MessageEnvelope {
  return createEnvelope({ type: 'ThingHappened', schemaVersion: 1, source: 'test', subject: 'thing', data, correlationId: 'req_test' });
}

const numberOf = (message: ReceivedMessage) => (message.envelope.data as { n: number }).n;

describe('bounded retry in the consumers, on a real Kafka broker', () => {
  let broker: KafkaMessageBroker;

  beforeAll(async () => {
    broker = new KafkaMessageBroker({ clientId: 'bounded-retry-test', brokers, namespace: runId, log: () => undefined });
    await broker.connect();
  });
  afterAll(async () => broker?.disconnect());

  it('pauses only the partition of a message failing transiently: its order kept, other partitions moving, no dead letter for the outage', async () => {
    const slow = 'retry.slow';
    const other = 'retry.other';
    await broker.ensureTopics([
      { topic: slow, partitions: 1 },
      { topic: other, partitions: 1 },
    ]);
    const handled = new Map<string, number[]>([
      [slow, []],
      [other, []],
    ]);
    let failedAttempts = 0;
    // The "database" is down for the slow topic's first message until the other topic is done,
    // and for at least twice attemptsMax attempts.
    const handler = async (message: ReceivedMessage) => {
      const n = numberOf(message);
      if (message.topic === slow && n === 1 && (failedAttempts < 4 || (handled.get(other) ?? []).length < 3)) {
        failedAttempts += 1;
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      }
      if (message.topic === other && n === 99) throw new Error('handler bug');
      handled.get(message.topic)?.push(n);
    };
    await broker.publish([1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ topic: slow, key: 'k', envelope: event({ n }) })));
    const subscription = await broker.subscribe({
      groupId: 'retry-consumer',
      topics: [slow, other],
      startFrom: 'earliest',
      handler,
      errorPolicy: { attemptsMax: 2, retryDelayInitialMs: 200, retryDelayMaxMs: 400 },
    });
    try {
      await subscription.ready;
      const waitingOnSlow = () => broker.stats().retrying.find((entry) => entry.groupId === 'retry-consumer' && entry.topic === slow);
      await eventually(() => waitingOnSlow() !== undefined);
      expect(waitingOnSlow()).toMatchObject({ partition: 0, offset: '0', kind: 'transient' });
      expect(handled.get(slow)).toEqual([]);

      // While the slow partition waits, another partition's messages are handled, and an unknown
      // error there still dead-letters after attemptsMax (2) attempts.
      await broker.publish([10, 99, 11, 12].map((n) => ({ topic: other, key: 'k', envelope: event({ n }) })));
      await eventually(() => handled.get(slow)?.length === 8);

      expect(handled.get(other)).toEqual([10, 11, 12]);
      expect(handled.get(slow)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(failedAttempts).toBeGreaterThanOrEqual(4);
      expect(broker.stats().deadLettered).toEqual([{ topic: other, messages: 1 }]);
      expect(broker.stats().retrying).toEqual([]);
    } finally {
      await subscription.stop();
    }
  });

  it('fetches no more of a partition at once than CONSUMER_PARTITION_FETCH_BYTES_MAX, and keeps its order', async () => {
    const topic = 'retry.big';
    await broker.ensureTopics([{ topic, partitions: 1 }]);
    const padding = 'x'.repeat(4_000);
    const total = 300;
    // One produce request each, so each message is a record batch of its own (a fetch may exceed
    // its byte limit by at most one record batch).
    for (let n = 1; n <= total; n += 1) await broker.publish([{ topic, key: 'k', envelope: event({ n, padding }) }]);
    const handled: number[] = [];
    const subscription = await broker.subscribe({
      groupId: 'big-consumer',
      topics: [topic],
      startFrom: 'earliest',
      handler: async (message) => void handled.push(numberOf(message)),
    });
    try {
      await eventually(() => handled.length === total);
      expect(handled).toEqual(Array.from({ length: total }, (_, index) => index + 1));
      const largest = broker.stats().largestFetchedBatches.find((entry) => entry.groupId === 'big-consumer')?.messages ?? 0;
      expect(largest).toBeGreaterThan(0);
      expect(largest).toBeLessThanOrEqual(Math.ceil(CONSUMER_PARTITION_FETCH_BYTES_MAX / padding.length) + 1);
    } finally {
      await subscription.stop();
    }
  });
});
