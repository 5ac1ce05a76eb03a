/**
 * Goal: a consumer off the request path can wait a few milliseconds after a fetch that brought
 * messages before the next one (`fetchLingerMs`), so that messages arriving one by one reach it
 * in fewer, fuller batches: one fetch and one transaction for many, instead of one each. An idle
 * consumer still handles a lone message as soon as it arrives.
 * Method: the real Kafka adapter on a private namespace of the shared test broker; messages are
 * published one per produce request, 15 ms apart, while the consumer waits.
 */
import { randomBytes } from 'node:crypto';
import { createEnvelope } from '../envelope';
import { eventually } from '@mp/shared-testing';
import type { ReceivedMessage } from '../messaging-port';
import { KafkaMessageBroker } from './kafka-message-broker';

const runId = `r${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');
/** Spaces the messages and idles the consumer: fixed times, not conditions (what is measured is the linger). */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('fetch linger, on a real Kafka broker', () => {
  let broker: KafkaMessageBroker;

  beforeAll(async () => {
    broker = new KafkaMessageBroker({ clientId: 'fetch-linger-test', brokers, namespace: runId, log: () => undefined });
    await broker.connect();
  });
  afterAll(async () => broker?.disconnect());

  /** Publishes `count` messages 15 ms apart to a fresh topic and returns the sizes of the deliveries the consumer got. */
  async function deliveriesOf(count: number, fetchLingerMs: number | undefined): Promise<{ sizes: number[]; order: number[] }> {
    const topic = `linger.${fetchLingerMs ?? 0}`;
    await broker.ensureTopics([{ topic, partitions: 1 }]);
    const sizes: number[] = [];
    const order: number[] = [];
    const record = (messages: ReceivedMessage[]) => {
      sizes.push(messages.length);
      order.push(...messages.map((message) => (message.envelope.data as { n: number }).n));
    };
    const subscription = await broker.subscribe({
      groupId: `linger-${fetchLingerMs ?? 0}`,
      topics: [topic],
      startFrom: 'earliest',
      fetchLingerMs,
      handler: async (message) => record([message]),
      batch: { topics: [topic], handle: async (messages) => record(messages) },
    });
    try {
      await subscription.ready;
      for (let n = 1; n <= count; n += 1) {
        await broker.publish([
          {
            topic,
            key: 'k',
            envelope: createEnvelope({ type: 'ThingHappened', schemaVersion: 1, source: 'test', subject: 'thing', data: { n }, correlationId: 'req_test' }),
          },
        ]);
        await pause(15);
      }
      await eventually(() => order.length === count);
      return { sizes, order };
    } finally {
      await subscription.stop();
    }
  }

  it('gathers messages that arrive one by one within the linger into one or two batches, in order', async () => {
    const { sizes, order } = await deliveriesOf(12, 1_000);
    expect(order).toEqual(Array.from({ length: 12 }, (_, index) => index + 1));
    expect(sizes.length).toBeLessThanOrEqual(2);
  });

  it('without a linger, hands over each message as soon as it is there', async () => {
    const { sizes, order } = await deliveriesOf(6, undefined);
    expect(order).toEqual([1, 2, 3, 4, 5, 6]);
    // Each message is fetched alone, unless the consumer was late for one (a busy machine).
    expect(sizes.length).toBeGreaterThanOrEqual(3);
  });

  it('handles a lone message on an idle consumer at once, not after the linger', async () => {
    const topic = 'linger.idle';
    await broker.ensureTopics([{ topic, partitions: 1 }]);
    let handledAt = 0;
    const subscription = await broker.subscribe({
      groupId: 'linger-idle',
      topics: [topic],
      startFrom: 'earliest',
      fetchLingerMs: 5_000,
      handler: async () => void (handledAt = Date.now()),
    });
    try {
      await subscription.ready;
      await pause(1_000);
      const publishedAt = Date.now();
      await broker.publish([
        {
          topic,
          key: 'k',
          envelope: createEnvelope({ type: 'ThingHappened', schemaVersion: 1, source: 'test', subject: 'thing', data: { n: 1 }, correlationId: 'req_test' }),
        },
      ]);
      await eventually(() => handledAt > 0);
      // The broker answers the waiting fetch with it; a linger held on the broker would take 5 s.
      expect(handledAt - publishedAt).toBeLessThan(2_500);
    } finally {
      await subscription.stop();
    }
  });
});
