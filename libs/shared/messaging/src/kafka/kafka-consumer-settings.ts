// A consumer's kafkajs settings, and the shapes a subscription's consumer run is handled in.
import type { EachMessagePayload } from 'kafkajs';
import type { BatchGather } from './kafka-batch-gather';
import type { ConsumerErrorPolicy, ConsumerGroupState, SubscriptionRequest } from '../messaging-port';

/**
 * Messages given to a batch handler at once: enough to share a transaction under load, few
 * enough that a chunk ends (and heartbeats) well within the session timeout.
 */
export const BATCH_HANDLER_MESSAGES_MAX = 50;

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

/**
 * How often a consumer commits the offsets it has handled. kafkajs 2.2.4 commits after every
 * batch when its autoCommit is on, whatever its autoCommitInterval says: under W1 that was 60 to
 * 100 OffsetCommit requests a second per group, more than its fetches, each an append to the
 * broker's offsets log. So the adapter runs kafkajs without autoCommit and commits itself: once
 * an interval, what was handled since the last commit, if anything was; and everything handled
 * when the subscription stops.
 * A crash or a rebalance hands the next owner the messages handled since the last commit, at
 * most this long's worth, again: every handler is idempotent (inbox or idempotent effects), as it
 * had to be for a crash before the per-batch commit.
 */
export const OFFSET_COMMIT_INTERVAL_MS = 1_000;

/** How long a fetch waits on the broker for a first message before it answers empty. */
export const CONSUMER_FETCH_WAIT_MS = 500;

export interface TrackedGroup {
  groupId: string;
  topics: string[];
  startFrom: SubscriptionRequest['startFrom'];
  state: ConsumerGroupState;
}

/** One subscription's consumer, as its handling steps need it. */
export interface ConsumerRun {
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
  /** By `<topic> <partition>`: the last offset handled (resolved) and not yet committed, of each partition this member owns. */
  uncommitted: Map<string, { topic: string; partition: number; offset: string }>;
  /** Commits the offsets handled since the last commit (OFFSET_COMMIT_INTERVAL_MS). */
  commitHandled: () => Promise<void>;
  /** By physical topic: the batches of its partitions gathered into one handler call per turn (BatchGather). */
  gathers: Map<string, BatchGather>;
}

/**
 * What handling one message under the error policy came to: done with (handled, passed over or
 * dead-lettered, so its offset may be committed), or waiting for another attempt (its partition
 * is paused; neither it nor anything behind it is committed).
 */
export type PolicyOutcome = 'done' | 'retryLater';

/** A message of a fetched batch, with what the error policy needs to pause its partition. */
export interface Delivery {
  topic: string;
  partition: number;
  message: KafkaMessage;
  /** Stops fetching the partition; the function it returns resumes it. */
  pause: () => () => void;
}

export type KafkaMessage = EachMessagePayload['message'];
