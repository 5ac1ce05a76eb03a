// kafkajs behind the messaging port: subscriptions (consumers, their groups and lag), stats, health and disconnect.
import { type Admin, type Consumer, type EachBatchPayload } from 'kafkajs';
import { isSettlingBrokerAnswer } from './kafka-log';
import { healthAfterFailedLagRead } from './kafka-health';
import { restartAfterCrash } from './restart-after-crash';
import { KafkaConsumerHandling } from './kafka-consumer-handling';
import {
  CONSUMER_FETCH_BYTES_MAX,
  CONSUMER_FETCH_WAIT_MS,
  CONSUMER_HEARTBEAT_INTERVAL_MS,
  CONSUMER_PARTITION_FETCH_BYTES_MAX,
  CONSUMER_SESSION_TIMEOUT_MS,
  OFFSET_COMMIT_INTERVAL_MS,
  type ConsumerRun,
  type TrackedGroup,
} from './kafka-consumer-settings';
import {
  DEFAULT_CONSUMER_ERROR_POLICY,
  type BrokerHealth,
  type ConsumerLag,
  type MessageBroker,
  type MessagingStats,
  type Subscription,
  type SubscriptionRequest,
} from '../messaging-port';

export type { KafkaBrokerOptions, KafkaClientSecurity } from './kafka-broker-options';
export { MESSAGE_SCHEMA_VERSION_HEADER, MESSAGE_TYPE_HEADER } from './kafka-message-headers';
export {
  CONSUMER_FETCH_BYTES_MAX,
  CONSUMER_HEARTBEAT_INTERVAL_MS,
  CONSUMER_PARTITION_FETCH_BYTES_MAX,
  CONSUMER_SESSION_TIMEOUT_MS,
} from './kafka-consumer-settings';

/** kafkajs behind the messaging port. Every library default that matters is set here explicitly. */
export class KafkaMessageBroker extends KafkaConsumerHandling implements MessageBroker {
  private readonly consumers = new Set<Consumer>();
  private readonly groups = new Set<TrackedGroup>();
  /** Kept connected for the readiness probe, which asks every few seconds; made on first use. */
  private healthAdmin: Admin | null = null;
  /** By `group topic partition`: the lag of each partition this process's consumers own. */
  private readonly consumerLag = new Map<string, ConsumerLag>();
  /** By `group topic`: the most messages one fetched batch of one partition held. */
  private readonly largestFetchedBatches = new Map<string, { groupId: string; topic: string; messages: number }>();

  async subscribe(request: SubscriptionRequest): Promise<Subscription> {
    const policy = request.errorPolicy ?? DEFAULT_CONSUMER_ERROR_POLICY;
    const consumer = this.kafka.consumer({
      groupId: this.topicName(request.groupId),
      sessionTimeout: this.options.sessionTimeoutMs ?? CONSUMER_SESSION_TIMEOUT_MS,
      heartbeatInterval: this.options.heartbeatIntervalMs ?? CONSUMER_HEARTBEAT_INTERVAL_MS,
      rebalanceTimeout: 30_000,
      maxWaitTimeInMs: CONSUMER_FETCH_WAIT_MS,
      maxBytesPerPartition: CONSUMER_PARTITION_FETCH_BYTES_MAX,
      maxBytes: CONSUMER_FETCH_BYTES_MAX,
      allowAutoTopicCreation: false,
      retry: { initialRetryTime: 200, retries: 10, maxRetryTime: 5_000 },
    });
    this.consumers.add(consumer);
    const group: TrackedGroup = {
      groupId: request.groupId,
      topics: request.topics.map((topic) => this.topicName(topic)),
      startFrom: request.startFrom,
      state: 'joining',
    };
    this.groups.add(group);
    consumer.on(consumer.events.REBALANCING, () => (group.state = 'rebalancing'));
    consumer.on(consumer.events.STOP, () => (group.state = 'stopped'));
    const { promise: ready, resolve: markReady } = Promise.withResolvers<void>();
    // Ready after the first fetch that follows joining: by then the group's starting offsets
    // are resolved, so a "latest" subscriber cannot miss a message published after ready.
    let joined = false;
    consumer.on(consumer.events.GROUP_JOIN, () => {
      joined = true;
      group.state = 'stable';
    });
    consumer.on(consumer.events.FETCH, () => joined && markReady());
    // Lag as kafkajs computes it for every fetched batch (no extra broker request): at its start,
    // everything from its first message to the partition's end, so a consumer stuck on a message
    // keeps showing the batch it is stuck in; at its end, what is left behind it. A rebalance
    // forgets partitions this process no longer owns.
    const recordLag = (payload: { topic: string; partition: number }, behind: number) => {
      const topic = this.logicalTopic(payload.topic);
      this.consumerLag.set(`${request.groupId} ${topic} ${payload.partition}`, {
        groupId: request.groupId,
        topic,
        partition: payload.partition,
        messages: Math.max(0, behind),
      });
    };
    consumer.on(consumer.events.START_BATCH_PROCESS, ({ payload }) => {
      recordLag(payload, payload.batchSize === 0 ? Number(payload.offsetLag) : Number(payload.offsetLagLow) + 1);
      const topic = this.logicalTopic(payload.topic);
      const key = `${request.groupId} ${topic}`;
      if ((this.largestFetchedBatches.get(key)?.messages ?? 0) < payload.batchSize)
        this.largestFetchedBatches.set(key, { groupId: request.groupId, topic, messages: payload.batchSize });
    });
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => recordLag(payload, Number(payload.offsetLag)));
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const assigned = new Set(
        Object.entries(payload.memberAssignment).flatMap(([topic, partitions]) =>
          partitions.map((partition) => `${request.groupId} ${this.logicalTopic(topic)} ${partition}`),
        ),
      );
      for (const [key, lag] of this.consumerLag) if (lag.groupId === request.groupId && !assigned.has(key)) this.consumerLag.delete(key);
      // A partition another member owns now is its to commit: an offset of ours could move its position back.
      for (const [key, { topic, partition }] of run.uncommitted)
        if (!assigned.has(`${request.groupId} ${this.logicalTopic(topic)} ${partition}`)) run.uncommitted.delete(key);
      for (const key of this.retrying.keys()) if (key.startsWith(`${request.groupId} `) && !assigned.has(key)) this.retrying.delete(key);
      for (const key of assigned) {
        const [, topic, partition] = key.split(' ');
        if (!this.consumerLag.has(key)) this.consumerLag.set(key, { groupId: request.groupId, topic, partition: Number(partition), messages: 0 });
      }
    });
    await consumer.connect();
    await consumer.subscribe({ topics: request.topics.map((topic) => this.topicName(topic)), fromBeginning: request.startFrom === 'earliest' });
    const stopped = new AbortController();
    const uncommitted: ConsumerRun['uncommitted'] = new Map();
    // The offsets handled since the last commit, once an interval (OFFSET_COMMIT_INTERVAL_MS).
    const commitHandled = async () => {
      const due = [...uncommitted];
      if (due.length === 0) return;
      await consumer.commitOffsets(due.map(([, { topic, partition, offset }]) => ({ topic, partition, offset: (BigInt(offset) + 1n).toString() })));
      // A partition handled further meanwhile holds a newer entry: it stays for the next commit.
      for (const [key, entry] of due) if (uncommitted.get(key) === entry) uncommitted.delete(key);
    };
    const run: ConsumerRun = {
      request,
      policy,
      isStopping: () => stopped.signal.aborted,
      batchTopics: new Set((request.batch?.topics ?? []).map((topic) => this.topicName(topic))),
      acceptedTypes: new Map(Object.entries(request.acceptedTypes ?? {}).map(([topic, types]) => [this.topicName(topic), new Set(types)])),
      resumeTimers: new Set(),
      lastFetchAtMs: 0,
      stopped,
      uncommitted,
      commitHandled,
      gathers: new Map(),
    };
    // A commit that fails (a rebalance under way, the broker away) is made by the next one, or
    // by the partition's next owner: until then its messages would be handled again, harmlessly.
    const commitTimer = setInterval(() => void commitHandled().catch(() => undefined), OFFSET_COMMIT_INTERVAL_MS);
    commitTimer.unref();
    consumer.on(consumer.events.FETCH, () => (run.lastFetchAtMs = Date.now()));
    const runConsumer = () =>
      consumer.run({
        // The adapter commits (OFFSET_COMMIT_INTERVAL_MS): kafkajs's autoCommit would commit after every batch.
        autoCommit: false,
        partitionsConsumedConcurrently: this.options.partitionsConsumedConcurrently ?? 1,
        // Batches even without a batch handler: kafkajs's eachMessage commits a message once its
        // handler returns, so a partition could not wait paused on a message that failed.
        eachBatchAutoResolve: false,
        eachBatch: (payload: EachBatchPayload) => this.handleBatch(payload, run),
      });
    consumer.on(consumer.events.CRASH, (event) => {
      // kafkajs restarts the consumer itself when it deems the error retriable (it then joins again);
      // otherwise it has disconnected it for good, and restartAfterCrash starts it again.
      group.state = event.payload.restart ? 'joining' : 'crashed';
      // One that kafkajs restarts on a settling answer (a fresh broker's coordinator still loading) is a warning.
      const settling = event.payload.restart && event.payload.error.name === 'KafkaJSProtocolError' && isSettlingBrokerAnswer(String(event.payload.error));
      this.log(settling ? 'warn' : 'error', `consumer ${request.groupId} crashed: ${String(event.payload.error)} (restart: ${event.payload.restart})`);
      if (event.payload.restart || stopped.signal.aborted) return;
      void restartAfterCrash({
        signal: stopped.signal,
        log: (line) => this.log('warn', `consumer ${request.groupId}: ${line}`),
        start: async () => {
          await consumer.connect();
          await runConsumer();
          // The subscription stopped while this attempt was under way: undo it.
          if (stopped.signal.aborted) return void (await consumer.disconnect());
          group.state = 'joining';
          this.log('info', `consumer ${request.groupId} started again after its crash`);
        },
      });
    });
    await runConsumer();
    return {
      ready,
      stop: async () => {
        stopped.abort();
        for (const timer of run.resumeTimers) clearTimeout(timer);
        run.resumeTimers.clear();
        // What was handled since the last commit (OFFSET_COMMIT_INTERVAL_MS), so the next owner
        // does not take it again; a batch still in hand commits its own when it ends.
        clearInterval(commitTimer);
        await commitHandled().catch(() => undefined);
        // Waits for the batch in hand and leaves the group, so the partitions move to another
        // replica at once instead of after the session timeout.
        await consumer.disconnect();
        this.consumers.delete(consumer);
        this.groups.delete(group);
        for (const [key, lag] of this.consumerLag) if (lag.groupId === request.groupId) this.consumerLag.delete(key);
        for (const [key, entry] of this.retrying) if (entry.groupId === request.groupId) this.retrying.delete(key);
      },
    };
  }

  stats(): MessagingStats {
    return {
      consumerLag: [...this.consumerLag.values()].map((lag) => ({ ...lag })),
      deadLettered: [...this.deadLettered].map(([topic, messages]) => ({ topic, messages })),
      consumed: [...this.consumed.values()].map((counts) => ({ ...counts })),
      retrying: [...this.retrying.values()].map((entry) => ({ ...entry })),
      largestFetchedBatches: [...this.largestFetchedBatches.values()].map((entry) => ({ ...entry })),
    };
  }

  async health(timeoutMs: number): Promise<BrokerHealth> {
    const groups = [...this.groups];
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>(
      (_, reject) => (timer = setTimeout(() => reject(new Error(`no answer from the broker within ${timeoutMs} ms`)), timeoutMs)),
    );
    try {
      const lags = await Promise.race([this.readLags(groups), timeout]);
      return { reachable: true, groups: groups.map((group, index) => ({ groupId: group.groupId, state: group.state, lag: lags[index] })) };
    } catch (error) {
      return healthAfterFailedLagRead(error, groups, [...this.consumerLag.values()]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** Each group's lag: end offsets minus committed offsets, over its topics' partitions. */
  private async readLags(groups: TrackedGroup[]): Promise<number[]> {
    if (!this.healthAdmin) {
      // No retries: a probe wants the broker's state now, and asks again in a few seconds.
      const admin = this.kafka.admin({ retry: { retries: 0 } });
      await admin.connect();
      this.healthAdmin = admin;
    }
    const admin = this.healthAdmin;
    const topics = [...new Set(groups.flatMap((group) => group.topics))];
    // Also the reachability check when this process consumes nothing (the gateway publishes).
    if (topics.length === 0) await admin.describeCluster();
    const ends = new Map<string, Array<{ partition: number; high: string; low: string }>>(
      await Promise.all(topics.map(async (topic) => [topic, await admin.fetchTopicOffsets(topic)] as const)),
    );
    return Promise.all(
      groups.map(async (group) => {
        const committed = await admin.fetchOffsets({ groupId: this.topicName(group.groupId), topics: group.topics });
        let lag = 0;
        for (const { topic, partitions } of committed) {
          for (const { partition, offset } of partitions) {
            const end = ends.get(topic)?.find((candidate) => candidate.partition === partition);
            if (!end) continue;
            // No commit yet: the group starts from the log's start, or from its end.
            const from = Number(offset) >= 0 ? Number(offset) : group.startFrom === 'earliest' ? Number(end.low) : Number(end.high);
            lag += Math.max(0, Number(end.high) - from);
          }
        }
        return lag;
      }),
    );
  }

  async disconnect(): Promise<void> {
    await Promise.allSettled([...this.consumers].map((consumer) => consumer.disconnect()));
    this.consumers.clear();
    this.groups.clear();
    await this.healthAdmin?.disconnect().catch(() => undefined);
    this.healthAdmin = null;
    await this.producer.disconnect();
  }
}
