import { backOff } from 'exponential-backoff';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { Kafka, logLevel, Partitioners, type Admin, type KafkaConfig, type Consumer, type EachBatchPayload, type EachMessagePayload, type IHeaders, type Producer } from 'kafkajs';
import { handleInMessageContext, ignoreProcessWarnings, messageTelemetryHeaders, printProcessWarningsFiltered, runInSpan, runInTelemetryContext, TRACEPARENT_HEADER } from '@mp/shared-telemetry';
import { SpanKind } from '@opentelemetry/api';
import { parseEnvelope } from '../envelope';
import { classifyError } from '../error-classification';
import { isKafkajsRequestQueueTimeoutWarning, isSettlingBrokerAnswer, kafkaLogLine, type BrokerLogLevel } from './kafka-log';
import { restartAfterCrash } from './restart-after-crash';
import { KafkaDeadLetterQueue } from './kafka-dead-letters';
import { aclsOf, reconcileAcls, type KafkaAccess } from './kafka-access';
import {
  DEFAULT_CONSUMER_ERROR_POLICY,
  deadLetterTopicOf,
  type BrokerHealth,
  type ConsumerErrorPolicy,
  type ConsumerGroupHealth,
  type ConsumerGroupState,
  type ConsumerLag,
  type ConsumedMessages,
  type DeadLetterQueue,
  type MessageBroker,
  type MessagingStats,
  type OutgoingMessage,
  type ReceivedMessage,
  type RetryingPartition,
  type Subscription,
  type SubscriptionRequest,
  type TopicSpec,
} from '../messaging-port';

export interface KafkaBrokerOptions {
  clientId: string;
  brokers: string[];
  /** Prepended to every topic and group id, so several environments can share one cluster. */
  namespace: string;
  connectionTimeoutMs?: number;
  requestTimeoutMs?: number;
  /** Consumer group session and heartbeat; the defaults are CONSUMER_SESSION_TIMEOUT_MS and CONSUMER_HEARTBEAT_INTERVAL_MS. */
  sessionTimeoutMs?: number;
  heartbeatIntervalMs?: number;
  /** Where this adapter's and the kafkajs client's own lines go (default: the console). */
  log?: (level: BrokerLogLevel, message: string) => void;
  /** SASL over TLS as this principal; absent or null: PLAINTEXT (a loopback broker). */
  security?: KafkaClientSecurity | null;
  /**
   * false: ensureTopics only checks that the topics and their dead-letter topics exist and fails
   * naming the missing ones, never creating one (topics declared as Strimzi KafkaTopics). Default true.
   */
  createTopics?: boolean;
}

/** The same shape as the services' KafkaSecurityConfig (@mp/shared-util-config). */
export interface KafkaClientSecurity {
  mechanism: 'SCRAM-SHA-512' | 'SCRAM-SHA-256';
  username: string;
  password: string;
  /** PEM file of the CA the broker's certificate chains to; null: the system's CAs. */
  caFile: string | null;
}

/** kafkajs's `ssl` and `sasl` for a principal; the CA file is read once, at boot, so a bad path stops the service there. */
function kafkajsSecurity(security: KafkaClientSecurity | null | undefined): Pick<KafkaConfig, 'ssl' | 'sasl'> {
  if (!security) return {};
  let ca: string | undefined;
  if (security.caFile) {
    try {
      ca = readFileSync(security.caFile, 'utf8');
    } catch (error) {
      throw new Error(`KAFKA_SSL_CA_FILE ${security.caFile} cannot be read: ${(error as Error).message}`);
    }
  }
  const { username, password } = security;
  const sasl = security.mechanism === 'SCRAM-SHA-256' ? { mechanism: 'scram-sha-256' as const, username, password } : { mechanism: 'scram-sha-512' as const, username, password };
  return { ssl: ca ? { ca: [ca] } : true, sasl };
}

interface QueuedPublish {
  messages: OutgoingMessage[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * Messages given to a batch handler at once: enough to share a transaction under load, few
 * enough that a chunk ends (and heartbeats) well within the session timeout.
 */
const BATCH_HANDLER_MESSAGES_MAX = 50;

/**
 * How long a crashed consumer keeps its partitions: the broker's smallest allowed session
 * (group.min.session.timeout.ms, 6 s by default), so a survivor takes over within about 7 s of
 * a SIGKILL (measured: bench/takeover.mjs). It was 10 s, which made takeover take about 11 s.
 */
export const CONSUMER_SESSION_TIMEOUT_MS = 6_000;

/**
 * How often a member heartbeats, and so how soon it hears of a rebalance (another member left,
 * died or joined) and rejoins: it bounds takeover after a graceful stop, about 1 s with 500 ms.
 * kafkajs heartbeats from its fetch loop, which maxWaitTimeInMs (500 ms) keeps turning.
 */
export const CONSUMER_HEARTBEAT_INTERVAL_MS = 500;

/**
 * What one fetch may bring of one partition (kafkajs's maxBytesPerPartition, 1 MB by default):
 * about 80 of our 1-2 KB envelopes, more than a batch handler's chunk of
 * BATCH_HANDLER_MESSAGES_MAX, so batching loses nothing at saturation. kafkajs fetches again only
 * once a fetch's batches are handled, so this and CONSUMER_FETCH_BYTES_MAX bound what a consumer
 * holds in memory, whatever the backlog in Kafka (the broker may exceed either by one record
 * batch, so a message larger than the limit still gets through).
 */
export const CONSUMER_PARTITION_FETCH_BYTES_MAX = 128 * 1024;

/** What one fetch may bring in all (kafkajs's maxBytes, 10 MB by default): eight full partitions' worth. */
export const CONSUMER_FETCH_BYTES_MAX = 1024 * 1024;

/** How long a fetch waits on the broker for a first message before it answers empty. */
const CONSUMER_FETCH_WAIT_MS = 500;

interface TrackedGroup {
  groupId: string;
  topics: string[];
  startFrom: SubscriptionRequest['startFrom'];
  state: ConsumerGroupState;
}

/**
 * Headers every published message carries next to its JSON envelope, copied from it: a consumer
 * passes over a type it has no work for on these alone, without decoding the value.
 */
export const MESSAGE_TYPE_HEADER = 'message-type';
export const MESSAGE_SCHEMA_VERSION_HEADER = 'message-schema-version';

/** One subscription's consumer, as its handling steps need it. */
interface ConsumerRun {
  request: SubscriptionRequest;
  policy: ConsumerErrorPolicy;
  isStopping: () => boolean;
  /** Physical topics whose messages go to the batch handler. */
  batchTopics: Set<string>;
  /** By physical topic: the envelope types the subscription accepts (every type on a topic not here). */
  acceptedTypes: Map<string, ReadonlySet<string>>;
  /** Timers that resume a partition paused for a retry; cleared when the subscription stops. */
  resumeTimers: Set<NodeJS.Timeout>;
  /** When the consumer's latest fetch came back (kafkajs's FETCH event), for the fetch linger. */
  lastFetchAtMs: number;
  /** Aborted when the subscription stops (isStopping reads it), so a linger does not hold up leaving the group. */
  stopped: AbortController;
}

/**
 * What handling one message under the error policy came to: done with (handled, passed over or
 * dead-lettered, so its offset may be committed), or waiting for another attempt (its partition
 * is paused; neither it nor anything behind it is committed).
 */
type PolicyOutcome = 'done' | 'retryLater';

/** A message of a fetched batch, with what the error policy needs to pause its partition. */
interface Delivery {
  topic: string;
  partition: number;
  message: KafkaMessage;
  /** Stops fetching the partition; the function it returns resumes it. */
  pause: () => () => void;
}

type KafkaMessage = EachMessagePayload['message'];

/** A cap on one coalesced produce request; one call's own messages are never split. */
const PUBLISH_BATCH_MESSAGES_MAX = 500;

/** How often the topics the producer wrote to are checked for deleted ones (forgetDeletedTopics); kafkajs refreshes their metadata every five minutes. */
const PRODUCER_TOPICS_CHECK_MS = 60_000;

/** A header's value as text (kafkajs gives Buffers); the first value of a repeated header. */
function headerText(headers: IHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

ignoreProcessWarnings(isKafkajsRequestQueueTimeoutWarning);

/** kafkajs behind the messaging port. Every library default that matters is set here explicitly. */
export class KafkaMessageBroker implements MessageBroker {
  private readonly kafka: Kafka;
  private producer: Producer;
  /** Topics (Kafka names) this producer has written to: kafkajs keeps asking for their metadata. */
  private producerTopics = new Set<string>();
  private producerTopicsCheckedAt = 0;
  private readonly consumers = new Set<Consumer>();
  private readonly groups = new Set<TrackedGroup>();
  /** Kept connected for the readiness probe, which asks every few seconds; made on first use. */
  private healthAdmin: Admin | null = null;
  private readonly publishQueue: QueuedPublish[] = [];
  private publishing = false;
  private readonly log: NonNullable<KafkaBrokerOptions['log']>;
  /** By `group topic partition`: the lag of each partition this process's consumers own. */
  private readonly consumerLag = new Map<string, ConsumerLag>();
  /** Messages dead-lettered by this process, by logical source topic. */
  private readonly deadLettered = new Map<string, number>();
  /** By `group topic`: what this process's consumers did with the messages they took. */
  private readonly consumed = new Map<string, ConsumedMessages>();
  /** By `group topic partition`: the message a paused partition waits to retry. */
  private readonly retrying = new Map<string, RetryingPartition>();
  /** By `group topic`: the most messages one fetched batch of one partition held. */
  private readonly largestFetchedBatches = new Map<string, { groupId: string; topic: string; messages: number }>();

  constructor(private readonly options: KafkaBrokerOptions) {
    // A service has routed its warnings to its logger already; an ops command or a tool has not.
    printProcessWarningsFiltered();
    this.log = options.log ?? ((level, message) => console[level === 'info' ? 'log' : level](`[kafka] ${message}`));
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      ...kafkajsSecurity(options.security),
      connectionTimeout: options.connectionTimeoutMs ?? 3_000,
      requestTimeout: options.requestTimeoutMs ?? 10_000,
      retry: { initialRetryTime: 100, retries: 8, maxRetryTime: 5_000 },
      logLevel: logLevel.ERROR,
      // kafkajs's lines go through the same log as ours (a service's JSON logger), not to the console.
      logCreator: () => (entry) => {
        const line = kafkaLogLine(entry);
        this.log(line.level, line.message);
      },
    });
    this.producer = this.newProducer();
  }

  private newProducer(): Producer {
    return this.kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
      // Duplicates are absorbed by every consumer's inbox, so the experimental idempotent
      // producer of kafkajs is not relied upon.
      idempotent: false,
      maxInFlightRequests: 5,
    });
  }

  /**
   * kafkajs never forgets a topic its producer wrote to: every later metadata refresh (each
   * new topic, and every five minutes) asks for all of them, and one deleted topic (a gateway
   * replica's reply topic, deleted when the replica stopped) fails the refresh, so every send
   * stalls through the client's retries and fails. So before a send to a topic this producer has
   * not written to yet, and at least every PRODUCER_TOPICS_CHECK_MS (well within the five
   * minutes), the topics it wrote to are checked; when one is gone the producer is replaced by a
   * fresh one. Sends are serialized (drainPublishQueue), so none is in flight on the old one.
   * kafkajs has no way to drop a topic from a producer's metadata, hence the replacement.
   */
  private async forgetDeletedTopics(topics: string[]): Promise<void> {
    const fresh = topics.some((topic) => !this.producerTopics.has(topic));
    if (this.producerTopics.size > 0 && (fresh || Date.now() - this.producerTopicsCheckedAt >= PRODUCER_TOPICS_CHECK_MS)) {
      this.producerTopicsCheckedAt = Date.now();
      const existing = await this.withAdmin((admin) => admin.listTopics()).then(
        (names) => new Set(names),
        () => null,
      );
      if (existing && [...this.producerTopics].some((topic) => !existing.has(topic))) {
        const old = this.producer;
        this.producer = this.newProducer();
        await this.producer.connect();
        // The fresh producer learns the remaining topics' metadata on its first send to each.
        this.producerTopics.clear();
        void old.disconnect().catch(() => undefined);
        this.log('info', 'replaced the producer: a topic it had written to was deleted');
      }
    }
    topics.forEach((topic) => this.producerTopics.add(topic));
  }

  private topicName(topic: string): string {
    return this.options.namespace ? `${this.options.namespace}.${topic}` : topic;
  }

  private logicalTopic(topic: string): string {
    const prefix = this.options.namespace ? `${this.options.namespace}.` : '';
    return topic.startsWith(prefix) ? topic.slice(prefix.length) : topic;
  }

  async connect(): Promise<void> {
    await this.producer.connect();
  }

  /** The dead-letter topics of this broker's namespace, for operators' tools. */
  deadLetters(): DeadLetterQueue {
    return new KafkaDeadLetterQueue(this.kafka, (topic) => this.topicName(topic), (topic) => this.logicalTopic(topic));
  }

  /** Runs `work` on a short-lived admin client (topic administration is rare: start-up, a miss). */
  private async withAdmin<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    const admin = this.kafka.admin();
    await admin.connect();
    try {
      return await work(admin);
    } finally {
      await admin.disconnect();
    }
  }

  async ensureTopics(topics: TopicSpec[]): Promise<void> {
    await this.withAdmin(async (admin) => {
      const existing = new Set(await admin.listTopics());
      const wanted = topics.flatMap((spec): TopicSpec[] => [spec, { topic: deadLetterTopicOf(spec.topic), partitions: 1 }]);
      const missing = wanted.filter((spec) => !existing.has(this.topicName(spec.topic)));
      if (missing.length === 0) return;
      if (this.options.createTopics === false) {
        throw new Error(
          `topics missing: ${missing.map((spec) => this.topicName(spec.topic)).join(', ')}; this service does not create topics (KAFKA_CREATE_TOPICS=false): declare them (deploy/k8s/overlays/prod/kafka-topics.yaml) and let the Topic Operator make them`,
        );
      }
      await admin
        .createTopics({
          // kafkajs's own wait gives up when the broker answers UNKNOWN_TOPIC_OR_PARTITION for a
          // topic it created a moment ago, which a broker with auto-creation off (compose,
          // Kubernetes, managed Kafka) does: the service then crashed at boot. Waited for below.
          waitForLeaders: false,
          topics: missing.map((spec) => ({
            topic: this.topicName(spec.topic),
            numPartitions: spec.partitions,
            replicationFactor: -1,
            ...(spec.retentionMs !== undefined ? { configEntries: [{ name: 'retention.ms', value: String(spec.retentionMs) }] } : {}),
          })),
        })
        .catch((error: unknown) => {
          // Another replica creating the same topic at the same moment is fine.
          if ((error as { type?: string }).type !== 'TOPIC_ALREADY_EXISTS') throw error;
        });
      await waitForLeaders(admin, missing.map((spec) => this.topicName(spec.topic)));
    });
  }

  /**
   * Makes the broker's ACLs for these principals exactly what `accesses` grant in this broker's
   * namespace (provisioning, as an admin principal): see kafka-access.ts.
   */
  async reconcileAccess(accesses: KafkaAccess[]): Promise<{ created: number; deleted: number }> {
    const wanted = accesses.flatMap((access) => aclsOf(access, this.options.namespace, deadLetterTopicOf));
    return this.withAdmin((admin) => reconcileAcls(admin, accesses.map((access) => access.principal), wanted));
  }

  async existingTopics(topics: string[]): Promise<Set<string>> {
    if (topics.length === 0) return new Set();
    const existing = new Set(await this.withAdmin((admin) => admin.listTopics()));
    return new Set(topics.filter((topic) => existing.has(this.topicName(topic))));
  }

  async listTopics(prefix: string): Promise<string[]> {
    const names = await this.withAdmin((admin) => admin.listTopics());
    const inNamespace = new Set(names);
    return names.map((name) => this.logicalTopic(name)).filter((topic) => topic.startsWith(prefix) && inNamespace.has(this.topicName(topic)));
  }

  async groupMemberCounts(groupIds: string[]): Promise<Map<string, number>> {
    if (groupIds.length === 0) return new Map();
    const { groups } = await this.withAdmin((admin) => admin.describeGroups(groupIds.map((groupId) => this.topicName(groupId))));
    const members = new Map(groups.map((group) => [this.logicalTopic(group.groupId), group.members.length]));
    return new Map(groupIds.map((groupId) => [groupId, members.get(groupId) ?? 0]));
  }

  async deleteTopicsAndGroups(request: { topics: string[]; groups: string[] }): Promise<void> {
    await this.withAdmin(async (admin) => {
      // Only the topics that exist: kafkajs fails the whole request on one unknown topic.
      const existing = new Set(await admin.listTopics());
      const topics = request.topics.map((topic) => this.topicName(topic)).filter((topic) => existing.has(topic));
      if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
      if (request.groups.length === 0) return;
      await admin.deleteGroups(request.groups.map((group) => this.topicName(group))).catch((error: unknown) => {
        // A group that never committed an offset does not exist; one that is gone already is fine.
        const failed = (error as { groups?: Array<{ error?: { type?: string } }> }).groups ?? [];
        if (failed.length === 0 || failed.some(({ error: cause }) => cause?.type !== 'GROUP_ID_NOT_FOUND')) throw error;
      });
    });
  }

  /**
   * Publishes with group commit: while one produce request is in flight, later calls queue up and
   * go out together in the next request, in call order. At low load a call is sent at once; under
   * load (many gateway requests at the same moment) Kafka sees one request for many messages
   * instead of one each. kafkajs has no `linger.ms` of its own to do this. The calls sharing a
   * request share its outcome: every caller treats a failed publish as retryable.
   */
  publish(messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      this.publishQueue.push({ messages, resolve, reject });
      if (!this.publishing) void this.drainPublishQueue();
    });
  }

  private async drainPublishQueue(): Promise<void> {
    this.publishing = true;
    try {
      while (this.publishQueue.length > 0) {
        const calls = this.takeQueuedCalls();
        try {
          await this.sendNow(calls.flatMap((call) => call.messages));
          calls.forEach((call) => call.resolve());
        } catch (error) {
          calls.forEach((call) => call.reject(error));
        }
      }
    } finally {
      this.publishing = false;
    }
  }

  /** Queued calls for one request: all of them, up to about PUBLISH_BATCH_MESSAGES_MAX messages. */
  private takeQueuedCalls(): QueuedPublish[] {
    let count = 0;
    let taken = 0;
    while (taken < this.publishQueue.length && (taken === 0 || count + this.publishQueue[taken].messages.length <= PUBLISH_BATCH_MESSAGES_MAX)) {
      count += this.publishQueue[taken].messages.length;
      taken += 1;
    }
    return this.publishQueue.splice(0, taken);
  }

  private async sendNow(messages: OutgoingMessage[]): Promise<void> {
    const byTopic = new Map<string, OutgoingMessage[]>();
    for (const message of messages) {
      const list = byTopic.get(message.topic) ?? [];
      list.push(message);
      byTopic.set(message.topic, list);
    }
    await this.forgetDeletedTopics([...byTopic.keys()].map((topic) => this.topicName(topic)));
    await this.producer.sendBatch({
      acks: -1,
      timeout: 10_000,
      topicMessages: [...byTopic.entries()].map(([topic, list]) => ({
        topic: this.topicName(topic),
        messages: list.map((message) => ({
          key: message.key,
          value: JSON.stringify(message.envelope),
          headers: {
            'message-id': message.envelope.id,
            [MESSAGE_TYPE_HEADER]: message.envelope.type,
            [MESSAGE_SCHEMA_VERSION_HEADER]: String(message.envelope.schemaVersion),
            ...messageTelemetryHeaders(message.envelope),
          },
        })),
      })),
    });
  }

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
    const group: TrackedGroup = { groupId: request.groupId, topics: request.topics.map((topic) => this.topicName(topic)), startFrom: request.startFrom, state: 'joining' };
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
      this.consumerLag.set(`${request.groupId} ${topic} ${payload.partition}`, { groupId: request.groupId, topic, partition: payload.partition, messages: Math.max(0, behind) });
    };
    consumer.on(consumer.events.START_BATCH_PROCESS, ({ payload }) => {
      recordLag(payload, payload.batchSize === 0 ? Number(payload.offsetLag) : Number(payload.offsetLagLow) + 1);
      const topic = this.logicalTopic(payload.topic);
      const key = `${request.groupId} ${topic}`;
      if ((this.largestFetchedBatches.get(key)?.messages ?? 0) < payload.batchSize) this.largestFetchedBatches.set(key, { groupId: request.groupId, topic, messages: payload.batchSize });
    });
    consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => recordLag(payload, Number(payload.offsetLag)));
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      const assigned = new Set(Object.entries(payload.memberAssignment).flatMap(([topic, partitions]) => partitions.map((partition) => `${request.groupId} ${this.logicalTopic(topic)} ${partition}`)));
      for (const [key, lag] of this.consumerLag) if (lag.groupId === request.groupId && !assigned.has(key)) this.consumerLag.delete(key);
      for (const key of this.retrying.keys()) if (key.startsWith(`${request.groupId} `) && !assigned.has(key)) this.retrying.delete(key);
      for (const key of assigned) {
        const [, topic, partition] = key.split(' ');
        if (!this.consumerLag.has(key)) this.consumerLag.set(key, { groupId: request.groupId, topic, partition: Number(partition), messages: 0 });
      }
    });
    await consumer.connect();
    await consumer.subscribe({ topics: request.topics.map((topic) => this.topicName(topic)), fromBeginning: request.startFrom === 'earliest' });
    const stopped = new AbortController();
    const run: ConsumerRun = {
      request,
      policy,
      isStopping: () => stopped.signal.aborted,
      batchTopics: new Set((request.batch?.topics ?? []).map((topic) => this.topicName(topic))),
      acceptedTypes: new Map(Object.entries(request.acceptedTypes ?? {}).map(([topic, types]) => [this.topicName(topic), new Set(types)])),
      resumeTimers: new Set(),
      lastFetchAtMs: 0,
      stopped,
    };
    consumer.on(consumer.events.FETCH, () => (run.lastFetchAtMs = Date.now()));
    const runConsumer = () =>
      consumer.run({
        autoCommit: true,
        autoCommitInterval: 1_000,
        partitionsConsumedConcurrently: 1,
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
        // Waits for the batch in hand, commits its offsets and leaves the group, so the
        // partitions move to another replica at once instead of after the session timeout.
        await consumer.disconnect();
        this.consumers.delete(consumer);
        this.groups.delete(group);
        for (const [key, lag] of this.consumerLag) if (lag.groupId === request.groupId) this.consumerLag.delete(key);
        for (const [key, entry] of this.retrying) if (entry.groupId === request.groupId) this.retrying.delete(key);
      },
    };
  }

  /**
   * A fetched batch of one partition, in chunks of up to BATCH_HANDLER_MESSAGES_MAX: each chunk
   * of more than one message goes to the batch handler as a whole when its topic has one;
   * otherwise, or when the batch handler throws, message by message through the error policy,
   * exactly as without batching. A heartbeat follows every chunk. Messages of a type the
   * subscription does not accept are passed over (their offsets resolved) before any decoding.
   * A message the policy will try again ends the batch unresolved: the partition is paused, and
   * once resumed kafkajs fetches it again from that message, so nothing behind it is handled
   * first and nothing of it stays in memory meanwhile.
   */
  private async handleBatch(payload: EachBatchPayload, run: ConsumerRun): Promise<void> {
    await this.handleBatchMessages(payload, run);
    await this.lingerBeforeNextFetch(payload, run);
  }

  /**
   * The fetch linger (`fetchLingerMs`): after a fetch that brought messages, the next one starts
   * no sooner than the linger after it, so messages arriving meanwhile come in one fetch and one
   * batch instead of one each. kafkajs fetches again only once every batch of a fetch is handled,
   * so waiting at the end of a batch delays that next fetch; the batches of one fetch share its
   * time, so only the first of them waits. A fetch that comes back empty is not handed to us, and
   * an idle consumer keeps long-polling the broker (CONSUMER_FETCH_WAIT_MS): a lone message is
   * handled at once, and nothing polls faster when there is no traffic. kafkajs has no linger of
   * its own on the consumer side (its minBytes/maxWaitTime would poll every linger while idle).
   */
  private async lingerBeforeNextFetch(payload: EachBatchPayload, run: ConsumerRun): Promise<void> {
    const lingerMs = run.request.fetchLingerMs ?? 0;
    if (lingerMs <= 0 || payload.batch.messages.length === 0) return;
    const waitMs = run.lastFetchAtMs + lingerMs - Date.now();
    if (waitMs <= 0 || !payload.isRunning() || run.isStopping()) return;
    const lingered = await sleep(waitMs, true, { signal: run.stopped.signal }).catch(() => false);
    if (lingered) await payload.heartbeat();
  }

  private async handleBatchMessages(payload: EachBatchPayload, run: ConsumerRun): Promise<void> {
    const { batch, resolveOffset, heartbeat, pause, isRunning, isStale } = payload;
    const batchHandler = run.request.batch && run.batchTopics.has(batch.topic) ? run.request.batch : null;
    for (let start = 0; start < batch.messages.length; start += BATCH_HANDLER_MESSAGES_MAX) {
      if (!isRunning() || isStale()) return;
      const chunk = batch.messages.slice(start, start + BATCH_HANDLER_MESSAGES_MAX);
      const passedOver = new Set(chunk.filter((message) => this.passedOverByHeader(run, batch.topic, message)));
      this.countConsumed(run, batch.topic, 'skippedUndecoded', passedOver.size);
      const wanted = chunk.filter((message) => !passedOver.has(message));
      const decoded = batchHandler && wanted.length > 1 ? this.receivedMessages(batch.topic, batch.partition, wanted) : null;
      if (batchHandler && decoded) {
        const accepted = decoded.filter((message) => this.accepts(run, batch.topic, message.envelope.type));
        try {
          const firstHeaders = wanted.find((message) => message.offset === accepted[0]?.offset)?.headers;
          if (accepted.length > 0) await this.handleBatchTraced(accepted, firstHeaders, batchHandler.handle);
          this.countConsumed(run, batch.topic, 'handled', accepted.length);
          this.countConsumed(run, batch.topic, 'skippedDecoded', decoded.length - accepted.length);
          chunk.forEach((message) => resolveOffset(message.offset));
          await heartbeat();
          continue;
        } catch (error) {
          this.log('warn', `batch of ${accepted.length} on ${batch.topic}[${batch.partition}] failed as a whole, handling its messages one by one: ${String(error)}`);
        }
      }
      for (const message of chunk) {
        if (!isRunning() || isStale()) return;
        if (!passedOver.has(message) && (await this.handleWithPolicy({ topic: batch.topic, partition: batch.partition, message, pause }, run)) === 'retryLater') return;
        resolveOffset(message.offset);
        await heartbeat();
      }
    }
  }

  /**
   * Whether the message's type header names a type its topic's subscription does not accept. A
   * message without the header (published before it existed) is decoded and judged by its
   * envelope instead.
   */
  private passedOverByHeader(run: ConsumerRun, topic: string, message: KafkaMessage): boolean {
    const accepted = run.acceptedTypes.get(topic);
    if (!accepted) return false;
    const type = headerText(message.headers, MESSAGE_TYPE_HEADER);
    return type !== undefined && !accepted.has(type);
  }

  private accepts(run: ConsumerRun, topic: string, type: string): boolean {
    return run.acceptedTypes.get(topic)?.has(type) ?? true;
  }

  private countConsumed(run: ConsumerRun, topic: string, outcome: 'handled' | 'skippedUndecoded' | 'skippedDecoded', messages = 1): void {
    if (messages === 0) return;
    const { groupId } = run.request;
    const logical = this.logicalTopic(topic);
    const key = `${groupId} ${logical}`;
    const counts = this.consumed.get(key) ?? { groupId, topic: logical, handled: 0, skippedUndecoded: 0, skippedDecoded: 0 };
    counts[outcome] += messages;
    this.consumed.set(key, counts);
  }

  /**
   * A batch handled in one consumer span continuing the first message's trace, with the
   * correlation id in the context when the batch shares one; each message still gets its own
   * "handled" line under its own correlation id.
   */
  private async handleBatchTraced(messages: ReceivedMessage[], firstHeaders: IHeaders | undefined, handle: (messages: ReceivedMessage[]) => Promise<void>): Promise<void> {
    const [first] = messages;
    const correlationIds = new Set(messages.map((message) => message.envelope.correlationId));
    const startedAt = performance.now();
    await runInSpan(
      `${first.topic} process`,
      SpanKind.CONSUMER,
      { [TRACEPARENT_HEADER]: headerText(firstHeaders, TRACEPARENT_HEADER) ?? first.envelope.traceparent },
      correlationIds.size === 1 ? { correlationId: first.envelope.correlationId } : {},
      { 'messaging.system': 'kafka', 'messaging.operation.type': 'process', 'messaging.destination.name': first.topic, 'messaging.batch.message_count': messages.length },
      () => handle(messages),
    );
    const durationMs = performance.now() - startedAt;
    for (const message of messages) runInTelemetryContext({ correlationId: message.envelope.correlationId }, () => this.logHandled(message, durationMs));
  }

  /** One line per handled message, like an HTTP access line: what, where, how long (the batch's time for a batch). */
  private logHandled(message: ReceivedMessage, durationMs: number): void {
    this.log('info', `handled ${message.envelope.type} ${message.topic}[${message.partition}]@${message.offset} in ${durationMs.toFixed(1)} ms`);
  }

  /** Messages as handlers see them; null if any is unparseable (the policy deals with it alone). */
  private receivedMessages(topic: string, partition: number, messages: KafkaMessage[]): ReceivedMessage[] | null {
    try {
      return messages.map((message) => ({
        topic: this.logicalTopic(topic),
        partition,
        offset: message.offset,
        key: message.key?.toString('utf8') ?? null,
        envelope: parseEnvelope(message.value),
      }));
    } catch {
      return null;
    }
  }

  /**
   * The consumer error policy, in one place:
   * - poison (unparseable, schema-invalid): dead-letter at once, then commit;
   * - transient (database or network down): retry with capped backoff until it succeeds,
   *   keeping the partition's order; nothing is dead-lettered for an outage;
   * - anything else: retry up to `attemptsMax` times, then dead-letter and commit, so one
   *   bad message cannot block its partition forever (nestjs/nest#14664).
   * A retry does not wait in place: the partition is paused for the backoff, so the consumer
   * holds nothing of it meanwhile and its other partitions keep moving; the attempt count lives
   * in `retrying`, by partition and offset, until the message is done with. No attempt is cut
   * short by a timeout: a handler cannot be cancelled, and a second attempt started beside a
   * first one still running would break the partition's order.
   */
  private async handleWithPolicy(delivery: Delivery, run: ConsumerRun): Promise<PolicyOutcome> {
    const { topic, partition, message } = delivery;
    const { request, policy } = run;
    const logical = this.logicalTopic(topic);
    const retryKey = `${request.groupId} ${logical} ${partition}`;
    const previous = this.retrying.get(retryKey);
    const attempt = previous?.offset === message.offset ? previous.attempts + 1 : 1;
    try {
      const envelope = parseEnvelope(message.value);
      if (!this.accepts(run, topic, envelope.type)) {
        this.countConsumed(run, topic, 'skippedDecoded');
      } else {
        const received: ReceivedMessage = { topic: logical, partition, offset: message.offset, key: message.key?.toString('utf8') ?? null, envelope };
        const startedAt = performance.now();
        await handleInMessageContext(received, headerText(message.headers, TRACEPARENT_HEADER), async () => {
          await request.handler(received);
          this.logHandled(received, performance.now() - startedAt);
        });
        this.countConsumed(run, topic, 'handled');
      }
    } catch (error) {
      const kind = classifyError(error);
      if (kind === 'poison' || (kind === 'unknown' && attempt >= policy.attemptsMax)) {
        this.log('error', `dead-lettering ${topic}[${partition}]@${message.offset} after ${attempt} attempt(s): ${String(error)}`);
        await this.deadLetter(delivery, error, attempt);
      } else {
        this.retryLater(delivery, run, { groupId: request.groupId, topic: logical, partition, offset: message.offset, attempts: attempt, kind }, error);
        return 'retryLater';
      }
    }
    this.retrying.delete(retryKey);
    return 'done';
  }

  /**
   * Pauses the partition for the backoff and resumes it after. While the subscription stops it
   * only leaves the message uncommitted, which hands it to whoever owns the partition next.
   */
  private retryLater(delivery: Delivery, run: ConsumerRun, waiting: RetryingPartition, error: unknown): void {
    if (run.isStopping()) return;
    const { policy } = run;
    const delayMs = Math.min(policy.retryDelayInitialMs * 2 ** (waiting.attempts - 1), policy.retryDelayMaxMs);
    this.log('warn', `retrying ${delivery.topic}[${delivery.partition}]@${waiting.offset} in ${delayMs} ms, its partition paused (attempt ${waiting.attempts}, ${waiting.kind}): ${String(error)}`);
    this.retrying.set(`${waiting.groupId} ${waiting.topic} ${waiting.partition}`, waiting);
    const resume = delivery.pause();
    const timer = setTimeout(() => {
      run.resumeTimers.delete(timer);
      resume();
    }, delayMs);
    run.resumeTimers.add(timer);
  }

  private async deadLetter(delivery: Delivery, error: unknown, attempts: number): Promise<void> {
    const { topic, partition, message } = delivery;
    await this.producer.send({
      topic: deadLetterTopicOf(topic),
      acks: -1,
      messages: [
        {
          key: message.key,
          value: message.value,
          headers: {
            ...message.headers,
            'dlq-source-topic': topic,
            'dlq-source-partition': String(partition),
            'dlq-source-offset': message.offset,
            'dlq-attempts': String(attempts),
            'dlq-error': String(error).slice(0, 1_000),
          },
        },
      ],
    });
    const sourceTopic = this.logicalTopic(topic);
    this.deadLettered.set(sourceTopic, (this.deadLettered.get(sourceTopic) ?? 0) + 1);
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
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer from the broker within ${timeoutMs} ms`)), timeoutMs)));
    try {
      const lags = await Promise.race([this.readLags(groups), timeout]);
      return { reachable: true, groups: groups.map((group, index) => ({ groupId: group.groupId, state: group.state, lag: lags[index] })) };
    } catch (error) {
      return { reachable: false, error: error instanceof Error ? error.message : String(error), groups: groups.map((group): ConsumerGroupHealth => ({ groupId: group.groupId, state: group.state, lag: 0 })) };
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
    const ends = new Map<string, Array<{ partition: number; high: string; low: string }>>(await Promise.all(topics.map(async (topic) => [topic, await admin.fetchTopicOffsets(topic)] as const)));
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

/**
 * Resolves once every partition of `topics` has a leader; retries with backoff (for up to about
 * 30 s) while the broker does not know a new topic yet or has not elected its leaders.
 */
async function waitForLeaders(admin: Admin, topics: string[]): Promise<void> {
  await backOff(
    async () => {
      const metadata = await admin.fetchTopicMetadata({ topics });
      const leaderless = metadata.topics.filter(({ partitions }) => partitions.length === 0 || partitions.some(({ leader }) => leader < 0));
      if (leaderless.length > 0) throw new Error(`no leader yet for ${leaderless.map(({ name }) => name).join(', ')}`);
    },
    { numOfAttempts: 25, startingDelay: 50, maxDelay: 2_000, timeMultiple: 2 },
  );
}
