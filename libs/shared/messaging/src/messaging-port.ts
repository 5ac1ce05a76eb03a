import type { MessageEnvelope } from './envelope';

/**
 * The small port every service talks to the broker through. The Kafka adapter is one
 * implementation; swapping kafkajs (unmaintained, see docs/decisions/kafka-client.md) for
 * another client means writing another adapter, not touching services.
 */
export interface OutgoingMessage {
  topic: string;
  /** Partitioning key: messages with one key stay in order. */
  key: string;
  envelope: MessageEnvelope;
}

export interface ReceivedMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  envelope: MessageEnvelope;
}

export type MessageHandler = (message: ReceivedMessage) => Promise<void>;

/**
 * Handles consecutive messages of one partition together (for example in one transaction).
 * All or nothing: when it throws, the port handles the same messages again one at a time with
 * `handler` and its error policy, so a poison message or a conflict fails alone.
 */
export interface BatchHandler {
  topics: string[];
  handle: (messages: ReceivedMessage[]) => Promise<void>;
}

export interface ConsumerErrorPolicy {
  /** Attempts for an error not known to be transient, before the message goes to the dead-letter topic. */
  attemptsMax: number;
  /** First retry delay; doubled per attempt up to retryDelayMaxMs. */
  retryDelayInitialMs: number;
  retryDelayMaxMs: number;
}

export const DEFAULT_CONSUMER_ERROR_POLICY: ConsumerErrorPolicy = {
  attemptsMax: 5,
  retryDelayInitialMs: 100,
  retryDelayMaxMs: 5_000,
};

export interface SubscriptionRequest {
  /** Consumers sharing a group id share the partitions; a unique id sees every message. */
  groupId: string;
  topics: string[];
  /** Where a group with no committed offset starts: the earliest message, or only new ones. */
  startFrom: 'earliest' | 'latest';
  handler: MessageHandler;
  /** For these topics, several messages fetched together go to `batch.handle` first. */
  batch?: BatchHandler;
  errorPolicy?: ConsumerErrorPolicy;
  /**
   * By topic, the envelope types the handlers act on; a topic not named here gets every type.
   * Any other type is passed over: its offset is committed, its value never decoded, no handler,
   * inbox or transaction sees it. The adapter reads the type from the message's metadata (a Kafka
   * header) and decodes only a message without it (published before the header existed), then
   * decides from the envelope's own `type`.
   */
  acceptedTypes?: Readonly<Record<string, readonly string[]>>;
  /**
   * After a fetch that brought messages, how long to wait before the next one (0 or absent: at
   * once). Under load, a consumer off the request path (a ledger credit, a callback) trades up to
   * these milliseconds of latency for fewer, fuller fetches and batches: each fetch costs a
   * request and a wake-up on both sides. An idle consumer is not affected: it long-polls, and a
   * lone message is handled as soon as it arrives.
   */
  fetchLingerMs?: number;
}

export interface Subscription {
  /** Resolves once the group has joined and partitions are assigned. */
  ready: Promise<void>;
  stop(): Promise<void>;
}

export interface TopicSpec {
  topic: string;
  partitions: number;
  /** How long the broker keeps messages (`retention.ms`); the broker's default when absent. */
  retentionMs?: number;
}

/** Where a consumer group of this process stands, as the readiness probe reports it. */
export type ConsumerGroupState = 'joining' | 'stable' | 'rebalancing' | 'crashed' | 'stopped';

export interface ConsumerGroupHealth {
  groupId: string;
  state: ConsumerGroupState;
  /** Messages on the group's partitions not yet committed by the group (all replicas together). */
  lag: number;
}

/**
 * The broker as this process sees it: reachable or not (and why), and its consumer groups.
 * `settling`: the broker answered the lag read with a transient answer (a leader election, say),
 * so the lags are as of the groups' last fetched batches.
 */
export type BrokerHealth =
  { reachable: true; settling?: string; groups: ConsumerGroupHealth[] } | { reachable: false; error: string; groups: ConsumerGroupHealth[] };

/** How far one consumer group is behind on one partition, as of its last fetched batch. */
export interface ConsumerLag {
  /** The logical group id (namespace stripped). */
  groupId: string;
  topic: string;
  partition: number;
  /** Messages between the group's position and the partition's end when the batch was fetched. */
  messages: number;
}

export interface ConsumedMessages {
  /** The logical group id (namespace stripped). */
  groupId: string;
  topic: string;
  handled: number;
  skippedUndecoded: number;
  skippedDecoded: number;
}

/** What the broker adapter saw in this process, for metrics: cheap, in memory, no broker round trip. */
export interface MessagingStats {
  /** One entry per partition assigned to this process's consumers. */
  consumerLag: ConsumerLag[];
  /** Messages this process sent to a dead-letter topic, by their logical source topic. */
  deadLettered: Array<{ topic: string; messages: number }>;
  /**
   * Messages this process's consumers took from the broker, by group and logical topic: handled
   * (a handler was done with them), skipped on their metadata alone (a type the subscription does
   * not accept, never decoded) and skipped after decoding (no type in the metadata: published
   * before the header existed).
   */
  consumed: ConsumedMessages[];
  /**
   * Partitions paused on a message that failed and waits for its next attempt (transient or not
   * yet dead-lettered): nothing more is fetched from them until it is retried.
   */
  retrying: RetryingPartition[];
  /** By group and logical topic: the most messages one fetched batch of one partition held. */
  largestFetchedBatches: Array<{ groupId: string; topic: string; messages: number }>;
}

export interface RetryingPartition {
  /** The logical group id (namespace stripped). */
  groupId: string;
  topic: string;
  partition: number;
  /** The message the partition waits on: nothing behind it is handled before it. */
  offset: string;
  /** Failed attempts so far. */
  attempts: number;
  kind: 'transient' | 'unknown';
}

export interface MessageBroker {
  connect(): Promise<void>;
  /** One metadata and offsets read, answered within `timeoutMs` (unreachable otherwise). */
  health(timeoutMs: number): Promise<BrokerHealth>;
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  /** Which of these topics exist now (a metadata read; for deciding what is still deliverable). */
  existingTopics(topics: string[]): Promise<Set<string>>;
  publish(messages: OutgoingMessage[]): Promise<void>;
  subscribe(request: SubscriptionRequest): Promise<Subscription>;
  /** The topics (logical names) whose name starts with `prefix`: for topics made per process, such as reply topics. */
  listTopics(prefix: string): Promise<string[]>;
  /** How many members each of these consumer groups has now; 0 for an empty, dead or unknown group. */
  groupMemberCounts(groupIds: string[]): Promise<Map<string, number>>;
  /** Deletes these topics and (empty) consumer groups; any already gone is not an error. */
  deleteTopicsAndGroups(request: { topics: string[]; groups: string[] }): Promise<void>;
  /** Consumer lag and dead-lettering seen by this process (see MessagingStats). */
  stats(): MessagingStats;
  disconnect(): Promise<void>;
}

export const MESSAGE_BROKER = Symbol('MESSAGE_BROKER');

/** The dead-letter topic of a topic. */
export function deadLetterTopicOf(topic: string): string {
  return `${topic}.dlq`;
}

/** A message the consumer error policy gave up on, as an operator needs to see it. */
export interface DeadLetter {
  /** The logical topic it came from (namespace stripped). */
  sourceTopic: string;
  sourcePartition: number;
  sourceOffset: string;
  /** Its position in the dead-letter topic. */
  partition: number;
  offset: string;
  key: string | null;
  messageId: string | null;
  messageType: string | null;
  attempts: number;
  error: string;
  deadLetteredAt: string;
}

/**
 * Operators' view of the dead-letter topics: look at what was given up on and, once the cause
 * is fixed, send it back to its source topic. Consumers' inboxes absorb a message that did get
 * applied after all, so a replay never applies anything twice.
 */
export interface DeadLetterQueue {
  /** Every dead letter of `topic` (the source topic's logical name), oldest first. */
  listDeadLetters(topic: string): Promise<DeadLetter[]>;
  /**
   * Republishes the dead letters of `topic` not replayed before, unchanged, to `topic` itself.
   * Each is replayed once: a message that fails again comes back as a new dead letter. A letter
   * whose headers claim another source topic, or another message type than its envelope's, is
   * refused (never sent anywhere) and reported.
   */
  replayDeadLetters(topic: string): Promise<DeadLetterReplay>;
}

export interface DeadLetterReplay {
  replayed: number;
  /** Letters passed over, with why: planted ones, whose headers disagree with the topic or the message. */
  refused: Array<{ partition: number; offset: string; reason: string }>;
}
