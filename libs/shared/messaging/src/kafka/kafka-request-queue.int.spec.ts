/**
 * Goal: the Kafka adapter's connections do not wake their process when nothing is waiting to be
 * sent (kafka-request-queue.ts: kafkajs 2.2.4 arms a 1 ms check forever), and a request that does
 * wait (a client-side throttle) is still sent once the throttle ends.
 * Method: kafkajs's own request queue class, with the adapter's replacement in place: one queue
 * alone, then the real adapter on a private namespace of the shared test broker, idle with a
 * subscribed consumer, counting the queue checks that run.
 */
import { randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { kafkajsRequestQueuePrototype, REQUEST_QUEUE_FIX } from './kafka-request-queue';
import { KafkaMessageBroker } from './kafka-message-broker';

const runId = `r${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');
/** A fixed window, not a condition: what is counted is what happens in it. */
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type QueueUnderTest = EventEmitter & {
  throttleCheckTimeoutId: NodeJS.Timeout | null;
  maybeThrottle(ms: number): void;
  push(request: {
    entry: { correlationId: number; apiKey: number; apiName: string; apiVersion: number; resolve: () => void; reject: () => void };
    expectResponse: boolean;
    sendRequest: () => void;
  }): void;
  checkPendingRequests(): void;
  destroy(): void;
};

function newQueue(): QueueUnderTest {
  const prototype = kafkajsRequestQueuePrototype();
  const RequestQueue = prototype.constructor as new (options: object) => QueueUnderTest;
  const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };
  return new RequestQueue({
    maxInFlightRequests: 5,
    requestTimeout: 1_000,
    enforceRequestTimeout: false,
    clientId: 'spec',
    broker: 'spec:9092',
    logger: silent,
  });
}

describe("kafkajs's request queue, as the adapter leaves it", () => {
  let broker: KafkaMessageBroker;

  beforeAll(async () => {
    broker = new KafkaMessageBroker({ clientId: 'request-queue-test', brokers, namespace: runId, log: () => undefined });
    await broker.connect();
  });
  afterAll(async () => broker?.disconnect());

  it('is the replaced method once the adapter is loaded', () => {
    expect(kafkajsRequestQueuePrototype()[REQUEST_QUEUE_FIX]).toBe(true);
  });

  it('arms no check when nothing waits, and sends a request held by a throttle once the throttle ends', async () => {
    const queue = newQueue();
    try {
      queue.checkPendingRequests();
      expect(queue.throttleCheckTimeoutId).toBeNull();

      const sent: number[] = [];
      queue.maybeThrottle(50);
      queue.push({
        entry: { correlationId: 1, apiKey: 1, apiName: 'Fetch', apiVersion: 11, resolve: () => undefined, reject: () => undefined },
        expectResponse: false,
        sendRequest: () => sent.push(1),
      });
      expect(sent).toEqual([]);
      expect(queue.throttleCheckTimeoutId).not.toBeNull();
      await pause(120);
      expect(sent).toEqual([1]);
      // Sent, and nothing else waits: no check is left armed.
      expect(queue.throttleCheckTimeoutId).toBeNull();
    } finally {
      queue.destroy();
    }
  });

  it('runs a handful of queue checks a second on an idle connected adapter with a consumer, not one per millisecond per connection', async () => {
    const topic = 'idle.queue';
    await broker.ensureTopics([{ topic, partitions: 1 }]);
    const subscription = await broker.subscribe({ groupId: 'idle-queue', topics: [topic], startFrom: 'earliest', handler: async () => undefined });
    const prototype = kafkajsRequestQueuePrototype();
    const original = prototype.checkPendingRequests;
    let checks = 0;
    try {
      await subscription.ready;
      await pause(500);
      prototype.checkPendingRequests = function counted(this: typeof prototype) {
        checks += 1;
        return original.call(this);
      };
      await pause(2_000);
    } finally {
      prototype.checkPendingRequests = original;
      await subscription.stop();
    }
    // Each answer runs one check (fetches every 500 ms, heartbeats, offset commits): tens over
    // the 2 s on a few connections. kafkajs's own loop ran about 1,000 a second on each of them.
    expect(checks).toBeGreaterThan(0);
    expect(checks).toBeLessThan(200);
  });
});
