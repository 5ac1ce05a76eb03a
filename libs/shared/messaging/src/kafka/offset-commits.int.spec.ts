/**
 * Goal: a consumer commits the offsets it handled once an interval, not once a batch
 * (OFFSET_COMMIT_INTERVAL_MS: kafkajs's autoCommit commits after every batch), still commits the
 * tail of a stream that then goes quiet, and commits everything it handled when it stops, so the
 * group's next member starts right after it.
 * Method: the real Kafka adapter on a private namespace of the shared test broker, and the
 * group's committed offset read with a plain kafkajs admin while messages arrive one by one:
 * committing once a batch, it would take about as many values as there are messages.
 */
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { eventually } from '@mp/shared-testing';
import { createEnvelope } from '../envelope';
import type { ReceivedMessage } from '../messaging-port';
import { OFFSET_COMMIT_INTERVAL_MS } from './kafka-consumer-settings';
import { KafkaMessageBroker } from './kafka-message-broker';

const runId = `o${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');
/** Fixed windows, not conditions: what is observed is what the commits do over time. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('offset commits, on a real Kafka broker', () => {
  let broker: KafkaMessageBroker;
  let admin: Admin;

  beforeAll(async () => {
    broker = new KafkaMessageBroker({ clientId: 'offset-commits-test', brokers, namespace: runId, log: () => undefined });
    await broker.connect();
    admin = new Kafka({ clientId: 'offset-commits-admin', brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.disconnect();
    await broker?.disconnect();
  });

  const publish = (topic: string, n: number) =>
    broker.publish([
      {
        topic,
        key: `k${n}`,
        envelope: createEnvelope({ type: 'ThingHappened', schemaVersion: 1, source: 'test', subject: 'thing', data: { n }, correlationId: 'req_test' }),
      },
    ]);
  /** A subscription from the earliest message that records the `n` of each message it handles. */
  const recording = async (groupId: string, topic: string) => {
    const handled: number[] = [];
    const subscription = await broker.subscribe({
      groupId,
      topics: [topic],
      startFrom: 'earliest',
      handler: async (message: ReceivedMessage) => void handled.push((message.envelope.data as { n: number }).n),
    });
    return { handled, subscription };
  };
  /** The group's committed offset of the topic's one partition (-1: none yet). */
  const committedOffset = async (groupId: string, topic: string) =>
    Number((await admin.fetchOffsets({ groupId: `${runId}.${groupId}`, topics: [`${runId}.${topic}`] }))[0]?.partitions[0]?.offset ?? -1);

  it('commits once an interval while a stream runs, and the tail of the stream once it goes quiet', async () => {
    const topic = 'commits.stream';
    await broker.ensureTopics([{ topic, partitions: 1 }]);
    const { handled, subscription } = await recording('stream', topic);
    const committedSeen = new Set<number>();
    try {
      await subscription.ready;
      // 60 messages one at a time, 25 ms apart: about 60 batches over 1.5 s.
      const started = performance.now();
      for (let n = 1; n <= 60; n += 1) {
        await publish(topic, n);
        committedSeen.add(await committedOffset('stream', topic));
        await pause(25);
      }
      const seconds = (performance.now() - started) / 1000;
      await eventually(() => handled.length === 60);
      // The committed offset moved about once an interval, not once a batch.
      committedSeen.delete(-1);
      expect(committedSeen.size).toBeLessThanOrEqual(Math.ceil((seconds * 1000) / OFFSET_COMMIT_INTERVAL_MS) + 1);
      // Nothing more arrives: the next interval still commits the last message.
      await pause(OFFSET_COMMIT_INTERVAL_MS * 1.5);
      expect(await committedOffset('stream', topic)).toBe(60);
    } finally {
      await subscription.stop();
    }
  });

  it('commits what it handled when it stops: the next member of the group starts after it', async () => {
    const topic = 'commits.stop';
    await broker.ensureTopics([{ topic, partitions: 1 }]);
    const { handled: first, subscription } = await recording('stopping', topic);
    await subscription.ready;
    for (let n = 1; n <= 5; n += 1) await publish(topic, n);
    await eventually(() => first.length === 5);
    // Stopped within the interval: only the stop's own commit can have recorded the fifth.
    await subscription.stop();
    expect(await committedOffset('stopping', topic)).toBe(5);

    const { handled: second, subscription: next } = await recording('stopping', topic);
    try {
      await next.ready;
      await publish(topic, 6);
      await eventually(() => second.length > 0);
      expect(second).toEqual([6]);
    } finally {
      await next.stop();
    }
  });
});
