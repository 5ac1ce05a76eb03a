/**
 * Goal: the messaging foundation keeps its promises on a real PostgreSQL server and Kafka
 * broker: optimistic concurrency and immutability of the event store, outbox rows published
 * only when their transaction commits, inbox de-duplication, and the consumer error policy
 * (transient errors retried, persistent ones and poison dead-lettered without blocking the
 * partition). Method: a private database and topic namespace per run, the real Kafka adapter,
 * and a plain kafkajs consumer to read dead-letter topics.
 */
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { eventually } from '@mp/shared-testing';
import { createEnvelope, PoisonMessageError, type MessageEnvelope } from './envelope';
import { KafkaMessageBroker } from './kafka/kafka-message-broker';
import type { ReceivedMessage } from './messaging-port';
import { appendToStream, readStream, StreamVersionConflictError } from './postgres/event-store';
import { claimInboxMessage } from './postgres/inbox';
import {
  MessagingEventHashChain1700000060380,
  MessagingOutboxDeletedOnPublish1700000037100,
  MessagingSchema1700000000000,
  MessagingUnreadIndexes1700000030000,
} from './postgres/messaging-schema.migration';
import { enqueueOutbox, readOutboxBacklog } from './postgres/outbox';
import { OutboxRelay } from './postgres/outbox-relay';

const runId = `m${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
const brokers = (process.env['KAFKA_BROKERS'] ?? '').split(',');
const quietLog = () => undefined;

function databaseUrl(): string {
  const url = new URL(process.env['TEST_PG_ADMIN_URL'] ?? '');
  url.pathname = `/${runId}`;
  return url.toString();
}

function event(subject: string, data: unknown = {}): MessageEnvelope {
  return createEnvelope({ type: 'ThingHappened', schemaVersion: 1, source: 'test', subject, data, correlationId: 'req_test' });
}

describe('messaging foundation on real Postgres and Kafka', () => {
  let dataSource: DataSource;
  let broker: KafkaMessageBroker;

  beforeAll(async () => {
    const admin = new Client({ connectionString: process.env['TEST_PG_ADMIN_URL'] });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${runId}"`);
    await admin.end();
    dataSource = new DataSource({
      type: 'postgres',
      url: databaseUrl(),
      migrations: [
        MessagingSchema1700000000000,
        MessagingUnreadIndexes1700000030000,
        MessagingOutboxDeletedOnPublish1700000037100,
        MessagingEventHashChain1700000060380,
      ],
    });
    await dataSource.initialize();
    await dataSource.runMigrations();
    broker = new KafkaMessageBroker({ clientId: 'messaging-test', brokers, namespace: runId, log: quietLog });
    await broker.connect();
  });

  afterAll(async () => {
    await broker?.disconnect();
    await dataSource?.destroy();
  });

  describe('event store', () => {
    it('appends at the expected version and refuses a second writer at the same version', async () => {
      const streamId = 'thing:1';
      await appendToStream(dataSource.manager, streamId, 0, [event(streamId), event(streamId)]);
      await expect(appendToStream(dataSource.manager, streamId, 0, [event(streamId)])).rejects.toBeInstanceOf(StreamVersionConflictError);
      const stream = await readStream(dataSource.manager, streamId);
      expect(stream.version).toBe(2);
      expect(stream.events).toHaveLength(2);
      expect(await appendToStream(dataSource.manager, streamId, 2, [event(streamId)])).toBe(3);
    });

    it('lets exactly one of many concurrent writers win', async () => {
      const streamId = 'thing:race';
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, () => dataSource.transaction((manager) => appendToStream(manager, streamId, 0, [event(streamId)]))),
      );
      expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
      expect(results.filter((result) => result.status === 'rejected' && result.reason instanceof StreamVersionConflictError)).toHaveLength(9);
    });

    it('keeps only the indexes something reads: by stream and version, the relay’s order, the inbox’s key', async () => {
      const indexes: Array<{ indexname: string }> = await dataSource.query(
        `SELECT indexname FROM pg_indexes WHERE tablename IN ('event_store', 'outbox', 'inbox') ORDER BY indexname`,
      );
      expect(indexes.map((index) => index.indexname)).toEqual([
        'event_store_pkey',
        'event_store_recorded_at',
        'event_store_stream_version_unique',
        'inbox_pkey',
        'outbox_pkey',
      ]);
    });

    it('refuses to change or delete an event', async () => {
      await expect(dataSource.query(`UPDATE event_store SET event_type = 'Forged'`)).rejects.toThrow(/append-only/);
      await expect(dataSource.query(`DELETE FROM event_store`)).rejects.toThrow(/append-only/);
    });
  });

  describe('inbox', () => {
    it('claims a message once per consumer', async () => {
      const id = event('x').id;
      expect(await claimInboxMessage(dataSource.manager, 'consumer-a', id)).toBe(true);
      expect(await claimInboxMessage(dataSource.manager, 'consumer-a', id)).toBe(false);
      expect(await claimInboxMessage(dataSource.manager, 'consumer-b', id)).toBe(true);
    });
  });

  describe('topics declared elsewhere (KAFKA_CREATE_TOPICS=false)', () => {
    it('names the missing topic and its dead-letter topic and makes neither; passes once they exist', async () => {
      const topic = 'declared.elsewhere';
      const checking = new KafkaMessageBroker({ clientId: 'messaging-test-checking', brokers, namespace: runId, createTopics: false, log: quietLog });
      await checking.connect();
      try {
        await expect(checking.ensureTopics([{ topic, partitions: 1 }])).rejects.toThrow(`topics missing: ${runId}.${topic}, ${runId}.${topic}.dlq;`);
        expect(await broker.existingTopics([topic, `${topic}.dlq`])).toEqual(new Set());
        // Made by someone else (here the creating broker; the Topic Operator in prod): now it passes.
        await broker.ensureTopics([{ topic, partitions: 1 }]);
        await expect(checking.ensureTopics([{ topic, partitions: 1 }])).resolves.toBeUndefined();
      } finally {
        await checking.disconnect();
      }
    });
  });

  describe('outbox relay', () => {
    /** An empty outbox, and a reader of `topic` collecting each message's `n` in arrival order. */
    async function emptyOutboxAndRead(topic: string, groupId: string) {
      await broker.ensureTopics([{ topic, partitions: 1 }]);
      await dataSource.query(`DELETE FROM outbox`);
      const received: number[] = [];
      const subscription = await broker.subscribe({
        groupId,
        topics: [topic],
        startFrom: 'earliest',
        handler: async (message) => void received.push((message.envelope.data as { n: number }).n),
      });
      await subscription.ready;
      return { received, subscription };
    }

    it('publishes committed messages in order and never those of a rolled-back transaction', async () => {
      const topic = 'outbox.test';
      await broker.ensureTopics([{ topic, partitions: 1 }]);
      const received: MessageEnvelope[] = [];
      const subscription = await broker.subscribe({
        groupId: 'outbox-reader',
        topics: [topic],
        startFrom: 'earliest',
        handler: async (message) => void received.push(message.envelope),
      });
      await subscription.ready;

      const committed = [event('order:1', { n: 1 }), event('order:1', { n: 2 }), event('order:1', { n: 3 })];
      await dataSource.transaction((manager) =>
        enqueueOutbox(
          manager,
          committed.map((envelope) => ({ topic, key: 'order:1', envelope })),
        ),
      );
      await expect(
        dataSource.transaction(async (manager) => {
          await enqueueOutbox(manager, [{ topic, key: 'order:1', envelope: event('order:1', { n: 'rolled back' }) }]);
          throw new Error('business failure');
        }),
      ).rejects.toThrow('business failure');

      // What the metrics report (docs/operations/metrics.md): the backlog before the relay runs...
      // A fixed window, not a condition: the backlog's oldest row gets at least a second old.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const waiting = await readOutboxBacklog(dataSource.manager);
      expect(waiting.unpublished).toBe(3);
      expect(waiting.oldestAgeSeconds).toBeGreaterThanOrEqual(1);
      expect(waiting.oldestAgeSeconds).toBeLessThan(60);

      const relay = new OutboxRelay(broker, { connectionString: databaseUrl(), batchSize: 2, pollIntervalMs: 200, log: quietLog });
      await relay.start();
      try {
        await eventually(() => (received.length >= 3 ? received : undefined));
        // A fixed window, not a condition: a fourth (rolled back) message would arrive within it.
        await new Promise((resolve) => setTimeout(resolve, 500));
        expect(received.map((envelope) => envelope.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
        // ...and none after.
        expect(await readOutboxBacklog(dataSource.manager)).toEqual({ unpublished: 0, oldestAgeSeconds: 0 });
      } finally {
        await relay.stop();
        await subscription.stop();
      }
    });

    it('deletes a batch in the pass the next commit wakes, and keeps a notification that comes while it publishes', async () => {
      const topic = 'outbox.one-pass';
      const { received, subscription } = await emptyOutboxAndRead(topic, 'one-pass-reader');
      const commit = (n: number) => dataSource.transaction((manager) => enqueueOutbox(manager, [{ topic, key: 'order:1', envelope: event('order:1', { n }) }]));
      const rowsLeft = async () => ((await dataSource.query(`SELECT message_key FROM outbox`)) as unknown[]).length;
      // Row 2 commits while the relay publishes row 1, so its notification finds no pass waiting.
      let publishes = 0;
      const committingWhilePublishing: Pick<KafkaMessageBroker, 'publish' | 'existingTopics'> = {
        existingTopics: (topics) => broker.existingTopics(topics),
        publish: async (messages) => {
          publishes += 1;
          if (publishes === 1) await commit(2);
          await broker.publish(messages);
        },
      };
      // A poll too slow for the test: only notifications can move the relay on.
      const relay = new OutboxRelay(committingWhilePublishing, { connectionString: databaseUrl(), batchSize: 10, pollIntervalMs: 600_000, log: quietLog });
      await relay.start();
      try {
        await commit(1);
        await eventually(() => (received.length >= 2 ? received : undefined));
        expect(received).toEqual([1, 2]);
        // Row 1 went with the pass that read row 2; row 2, published, waits for the next pass.
        expect(await rowsLeft()).toBe(1);
        await commit(3);
        await eventually(() => (received.length >= 3 ? received : undefined));
        expect(received).toEqual([1, 2, 3]);
        expect(await rowsLeft()).toBe(1);
      } finally {
        await relay.stop();
        await subscription.stop();
      }
      // A clean stop deletes what it published: nothing goes again.
      expect(await rowsLeft()).toBe(0);
    });

    it("loses and reorders nothing when the relay dies between the broker's acknowledgement and deleting the rows", async () => {
      const topic = 'outbox.crash';
      const { received, subscription } = await emptyOutboxAndRead(topic, 'crash-reader');
      await dataSource.transaction((manager) =>
        enqueueOutbox(
          manager,
          [1, 2, 3, 4, 5].map((n) => ({ topic, key: 'order:1', envelope: event('order:1', { n }) })),
        ),
      );

      // The first relay publishes its second batch (3, 4) and dies before its next statement:
      // its session ends (as a killed process's would, releasing the lock), and it never goes on.
      let crashed!: () => void;
      const crash = new Promise<void>((resolve) => (crashed = resolve));
      let bury!: (error: Error) => void;
      let batches = 0;
      const dying: Pick<KafkaMessageBroker, 'publish' | 'existingTopics'> = {
        existingTopics: (topics) => broker.existingTopics(topics),
        publish: async (messages) => {
          await broker.publish(messages);
          batches += 1;
          if (batches < 2) return;
          await dataSource.query(`SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND objid = 7133001 AND granted`);
          crashed();
          await new Promise<never>((_resolve, reject) => (bury = reject));
        },
      };
      const first = new OutboxRelay(dying, { connectionString: databaseUrl(), batchSize: 2, pollIntervalMs: 200, log: quietLog });
      const second = new OutboxRelay(broker, { connectionString: databaseUrl(), batchSize: 2, pollIntervalMs: 200, log: quietLog });
      await first.start();
      try {
        await crash;
        await second.start();
        await eventually(() => (received.length >= 7 ? received : undefined));
        // A fixed window, not a condition: an eighth message (a further repeat) would arrive within it.
        await new Promise((resolve) => setTimeout(resolve, 500));
        // The batch that was sent but not deleted goes again, in order, before what follows it.
        expect(received).toEqual([1, 2, 3, 4, 3, 4, 5]);
        await eventually(async () => ((await readOutboxBacklog(dataSource.manager)).unpublished === 0 ? true : undefined));
      } finally {
        bury?.(new Error('the dead relay is cleaned up'));
        await first.stop();
        await second.stop();
        await subscription.stop();
      }
    });
  });

  describe('publishing', () => {
    it('keeps call order when concurrent publishes share produce requests', async () => {
      const topic = 'publish.coalesced';
      await broker.ensureTopics([{ topic, partitions: 1 }]);
      const received: unknown[] = [];
      const subscription = await broker.subscribe({
        groupId: 'coalesced-reader',
        topics: [topic],
        startFrom: 'earliest',
        handler: async (message) => void received.push(message.envelope.data),
      });
      await subscription.ready;
      try {
        // Called in one tick: the first call goes out alone, the other 59 queue behind it.
        const calls = Array.from({ length: 60 }, (_, n) => broker.publish([{ topic, key: 'same-key', envelope: event('thing', { n }) }]));
        await Promise.all(calls);
        await eventually(() => (received.length >= 60 ? received : undefined));
        expect(received).toEqual(Array.from({ length: 60 }, (_, n) => ({ n })));
      } finally {
        await subscription.stop();
      }
    });
  });

  describe('batch handlers', () => {
    it('gives messages fetched together to the batch handler, and one by one under the policy when the batch fails', async () => {
      const topic = 'batch.test';
      await broker.ensureTopics([{ topic, partitions: 1 }]);
      const batches: unknown[][] = [];
      const singles: unknown[] = [];
      const isBad = (message: ReceivedMessage) => (message.envelope.data as { bad?: boolean }).bad === true;
      const subscribe = () =>
        broker.subscribe({
          groupId: 'batch-reader',
          topics: [topic],
          startFrom: 'earliest',
          errorPolicy: { attemptsMax: 1, retryDelayInitialMs: 10, retryDelayMaxMs: 10 },
          handler: async (message) => {
            singles.push(message.envelope.data);
            if (isBad(message)) throw new PoisonMessageError('bad message');
          },
          batch: {
            topics: [topic],
            handle: async (messages) => {
              batches.push(messages.map((message) => message.envelope.data));
              if (messages.some(isBad)) throw new Error('one of them is bad');
            },
          },
        });
      // Published before the group exists, so its first fetch brings all six at once.
      await broker.publish([1, 2, 3, 4, 5, 6].map((n) => ({ topic, key: 'k', envelope: event('thing', n === 4 ? { n, bad: true } : { n }) })));
      let subscription = await subscribe();
      await eventually(() => (singles.length >= 6 ? singles : undefined));
      expect(batches).toEqual([[{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4, bad: true }, { n: 5 }, { n: 6 }]]);
      expect(singles).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4, bad: true }, { n: 5 }, { n: 6 }]);
      await subscription.stop();

      await broker.publish([7, 8, 9].map((n) => ({ topic, key: 'k', envelope: event('thing', { n }) })));
      subscription = await subscribe();
      try {
        await eventually(() => (batches.length >= 2 ? batches : undefined));
        // A fixed window, not a condition: a third batch (a redelivery) would arrive within it.
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect(batches[1]).toEqual([{ n: 7 }, { n: 8 }, { n: 9 }]);
        expect(batches).toHaveLength(2);
        expect(singles).toHaveLength(6);
      } finally {
        await subscription.stop();
      }
    });
  });

  describe('outbox relay and transient topics', () => {
    it('drops messages to a transient topic that does not exist and publishes those behind them', async () => {
      const topic = 'outbox.after-gone-reply';
      const liveReplies = 'replies.live';
      await broker.ensureTopics([
        { topic, partitions: 1 },
        { topic: liveReplies, partitions: 1, retentionMs: 60_000 },
      ]);
      const received: Array<{ topic: string; data: unknown }> = [];
      const subscription = await broker.subscribe({
        groupId: 'transient-reader',
        topics: [topic, liveReplies],
        startFrom: 'earliest',
        handler: async (message) => void received.push({ topic: message.topic, data: message.envelope.data }),
      });
      await subscription.ready;
      await dataSource.query(`DELETE FROM outbox`);
      await dataSource.transaction((manager) =>
        enqueueOutbox(manager, [
          { topic: 'replies.gone', key: 'c1', envelope: event('reply', { n: 'to a replica that is gone' }) },
          { topic: liveReplies, key: 'c2', envelope: event('reply', { n: 'to a live replica' }) },
          { topic, key: 'order:9', envelope: event('order:9', { n: 'behind the replies' }) },
        ]),
      );
      const relay = new OutboxRelay(broker, {
        connectionString: databaseUrl(),
        batchSize: 10,
        pollIntervalMs: 200,
        log: quietLog,
        isTransientTopic: (name) => name.startsWith('replies.'),
      });
      await relay.start();
      try {
        await eventually(() => (received.length >= 2 ? received : undefined));
        expect(received.sort((a, b) => a.topic.localeCompare(b.topic))).toEqual([
          { topic, data: { n: 'behind the replies' } },
          { topic: liveReplies, data: { n: 'to a live replica' } },
        ]);
        // The relay deletes rows after the broker has them, so a consumer can be first.
        await eventually(async () => {
          const [{ unpublished }] = await dataSource.query(`SELECT count(*)::int AS unpublished FROM outbox`);
          return unpublished === 0 ? true : undefined;
        });
        expect(await broker.existingTopics(['replies.gone', liveReplies])).toEqual(new Set([liveReplies]));
      } finally {
        await relay.stop();
        await subscription.stop();
      }
    });
  });

  describe('consumer error policy', () => {
    const topic = 'policy.test';
    let deadLetters: Array<{ value: string; headers: Record<string, string> }>;
    let dlqConsumer: ReturnType<Kafka['consumer']>;

    beforeAll(async () => {
      await broker.ensureTopics([{ topic, partitions: 1 }]);
      deadLetters = [];
      const kafka = new Kafka({ clientId: 'dlq-reader', brokers, logLevel: logLevel.NOTHING });
      dlqConsumer = kafka.consumer({ groupId: `${runId}.dlq-reader` });
      await dlqConsumer.connect();
      await dlqConsumer.subscribe({ topics: [`${runId}.${topic}.dlq`], fromBeginning: true });
      await dlqConsumer.run({
        eachMessage: async ({ message }) => {
          const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]));
          deadLetters.push({ value: message.value?.toString('utf8') ?? '', headers });
        },
      });
    });
    afterAll(async () => dlqConsumer?.disconnect());

    it('retries transient errors until they pass, dead-letters persistent errors and poison, and keeps the partition moving', async () => {
      const attempts = new Map<string, number>();
      const processed: string[] = [];
      const handler = async (message: ReceivedMessage) => {
        const kind = (message.envelope.data as { kind: string }).kind;
        const attempt = (attempts.get(kind) ?? 0) + 1;
        attempts.set(kind, attempt);
        if (kind === 'flaky-database' && attempt < 3) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
        if (kind === 'always-failing') throw new Error('handler bug');
        processed.push(kind);
      };
      const subscription = await broker.subscribe({
        groupId: 'policy-consumer',
        topics: [topic],
        startFrom: 'earliest',
        handler,
        errorPolicy: { attemptsMax: 3, retryDelayInitialMs: 20, retryDelayMaxMs: 100 },
      });
      await subscription.ready;

      await broker.publish(['flaky-database', 'always-failing'].map((kind) => ({ topic, key: 'k', envelope: event('policy', { kind }) })));
      const producer = new Kafka({ clientId: 'poison', brokers, logLevel: logLevel.NOTHING }).producer();
      await producer.connect();
      await producer.send({ topic: `${runId}.${topic}`, messages: [{ key: 'k', value: 'this is not an envelope' }] });
      await producer.disconnect();
      await broker.publish([{ topic, key: 'k', envelope: event('policy', { kind: 'after-the-bad-ones' }) }]);

      await eventually(() => (processed.includes('after-the-bad-ones') && deadLetters.length >= 2 ? true : undefined));
      // The stats metrics read: dead letters by logical source topic, and the group caught up.
      expect(broker.stats().deadLettered).toContainEqual({ topic, messages: 2 });
      await eventually(() => (broker.stats().consumerLag.some((lag) => lag.groupId === 'policy-consumer' && lag.messages === 0) ? true : undefined));
      expect(broker.stats().consumerLag.filter((lag) => lag.groupId === 'policy-consumer')).toEqual([
        { groupId: 'policy-consumer', topic, partition: 0, messages: 0 },
      ]);
      await subscription.stop();
      expect(broker.stats().consumerLag.filter((lag) => lag.groupId === 'policy-consumer')).toEqual([]);

      expect(processed).toEqual(['flaky-database', 'after-the-bad-ones']);
      expect(attempts.get('flaky-database')).toBe(3);
      expect(attempts.get('always-failing')).toBe(3);
      expect(deadLetters.map((letter) => [letter.headers['dlq-attempts'], letter.headers['dlq-error']])).toEqual([
        ['3', 'Error: handler bug'],
        ['1', expect.stringContaining('not JSON')],
      ]);
      expect(deadLetters[1].value).toBe('this is not an envelope');
      expect(deadLetters[0].headers['dlq-source-topic']).toBe(`${runId}.${topic}`);
    });
  });

  describe('consumer lag', () => {
    it('shows the messages a consumer stuck on one of them has not handled, and none once it catches up', async () => {
      const topic = 'lag.test';
      await broker.ensureTopics([{ topic, partitions: 1 }]);
      const { promise: stuck, resolve: release } = Promise.withResolvers<void>();
      const handled: number[] = [];
      const subscription = await broker.subscribe({
        groupId: 'lag-consumer',
        topics: [topic],
        startFrom: 'earliest',
        handler: async (message) => {
          const n = (message.envelope.data as { n: number }).n;
          if (n === 1) await stuck;
          handled.push(n);
        },
      });
      await subscription.ready;
      const lagOf = () => broker.stats().consumerLag.find((lag) => lag.groupId === 'lag-consumer' && lag.topic === topic)?.messages;
      try {
        await broker.publish([1, 2, 3].map((n) => ({ topic, key: 'k', envelope: event('lag', { n }) })));
        // Stuck on the first: the whole batch it is in is still behind.
        await eventually(() => ((lagOf() ?? 0) >= 3 ? true : undefined));
        expect(handled).toEqual([]);
        release();
        await eventually(() => (handled.length === 3 && lagOf() === 0 ? true : undefined));
      } finally {
        release();
        await subscription.stop();
      }
    });
  });

  describe('dead letters for operators', () => {
    it('lists dead letters with their cause, and replays each once to its source topic after the fix', async () => {
      const topic = 'replay.test';
      await broker.ensureTopics([{ topic, partitions: 2 }]);
      const queue = broker.deadLetters();
      expect(await queue.listDeadLetters(topic)).toEqual([]);
      expect(await queue.replayDeadLetters(topic)).toEqual({ replayed: 0, refused: [] });
      await expect(queue.listDeadLetters('no.such.topic')).rejects.toThrow(/no dead-letter topic .*no\.such\.topic\.dlq/);

      let bugFixed = false;
      const processed: string[] = [];
      const subscription = await broker.subscribe({
        groupId: 'replay-consumer',
        topics: [topic],
        startFrom: 'earliest',
        handler: async (message) => {
          const kind = (message.envelope.data as { kind: string }).kind;
          if (kind.startsWith('needs-fix') && !bugFixed) throw new Error(`handler bug on ${kind}`);
          processed.push(kind);
        },
        errorPolicy: { attemptsMax: 2, retryDelayInitialMs: 10, retryDelayMaxMs: 20 },
      });
      await subscription.ready;
      const broken = [event('a', { kind: 'needs-fix-1' }), event('b', { kind: 'needs-fix-2' })];
      await broker.publish([
        ...broken.map((envelope, index) => ({ topic, key: `k${index}`, envelope })),
        { topic, key: 'k9', envelope: event('c', { kind: 'fine' }) },
      ]);
      const letters = await eventually(
        () => queue.listDeadLetters(topic),
        (listed) => listed.length === 2,
        'two dead letters',
      );
      expect(letters.map((letter) => letter.messageId).sort()).toEqual(broken.map((envelope) => envelope.id).sort());
      expect(letters[0]).toMatchObject({
        sourceTopic: topic,
        attempts: 2,
        messageType: 'ThingHappened',
        error: expect.stringMatching(/^Error: handler bug on needs-fix-\d$/),
      });
      expect(processed).toEqual(['fine']);

      bugFixed = true;
      expect(await queue.replayDeadLetters(topic)).toEqual({ replayed: 2, refused: [] });
      await eventually(() => (processed.length === 3 ? true : undefined));
      expect(processed.slice(1).sort()).toEqual(['needs-fix-1', 'needs-fix-2']);
      // Replayed once: a second replay finds nothing new, and listing still shows the history.
      expect(await queue.replayDeadLetters(topic)).toEqual({ replayed: 0, refused: [] });
      expect(await queue.listDeadLetters(topic)).toHaveLength(2);
      await subscription.stop();
    });

    it('replays only to the topic it is asked for: a planted letter naming another topic, or another type than its envelope, is refused and sent nowhere', async () => {
      const [topic, target] = ['planted.test', 'planted.target'];
      await broker.ensureTopics([
        { topic, partitions: 1 },
        { topic: target, partitions: 1 },
      ]);
      const arrived: string[] = [];
      const watcher = await broker.subscribe({
        groupId: 'planted-watcher',
        topics: [topic, target],
        startFrom: 'earliest',
        handler: async (message) => void arrived.push(`${message.topic}:${message.envelope.type}`),
      });
      await watcher.ready;
      const forged = event('forged', { kind: 'forged' });
      const honest = event('honest', { kind: 'honest' });
      const letter = (envelope: MessageEnvelope, headers: Record<string, string>) => ({
        key: 'k',
        value: JSON.stringify(envelope),
        headers: { 'message-id': envelope.id, 'message-type': envelope.type, 'dlq-error': 'Error: x', 'dlq-attempts': '1', ...headers },
      });
      // What a principal allowed to write this dead-letter topic could plant, and one honest letter.
      const producer = new Kafka({ clientId: 'planter', brokers, logLevel: logLevel.NOTHING }).producer();
      await producer.connect();
      await producer.send({
        topic: `${runId}.${topic}.dlq`,
        messages: [
          letter(forged, { 'dlq-source-topic': `${runId}.${target}` }),
          letter(forged, { 'dlq-source-topic': `${runId}.${topic}`, 'message-type': 'RequestWithdrawal' }),
          letter(honest, { 'dlq-source-topic': `${runId}.${topic}` }),
        ],
      });
      await producer.disconnect();

      const result = await broker.deadLetters().replayDeadLetters(topic);
      expect(result.replayed).toBe(1);
      expect(result.refused.map(({ offset, reason }) => [offset, reason])).toEqual([
        ['0', expect.stringContaining(`names "${runId}.${target}", not ${runId}.${topic}`)],
        ['1', expect.stringContaining('message-type header says "RequestWithdrawal" but its envelope is "ThingHappened"')],
      ]);
      await eventually(() => (arrived.length === 1 ? true : undefined));
      // A fixed window, not a condition: a refused message replayed by mistake would arrive within it.
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(arrived).toEqual([`${topic}:ThingHappened`]);
      await watcher.stop();
    });
  });
});
