import { randomBytes } from 'node:crypto';
import { backOff } from 'exponential-backoff';
import type { Admin, Consumer, IHeaders, Kafka, KafkaMessage } from 'kafkajs';
import { deadLetterTopicOf, type DeadLetter, type DeadLetterQueue, type DeadLetterReplay } from '../messaging-port';
import { replayGroupOf } from './kafka-access';
import { withKafkaAdmin } from './kafka-admin';

/** How long a listing or a replay may take to read up to the end of a dead-letter topic. */
const READ_TIMEOUT_MS = 60_000;

/** The dead-letter topics of a KafkaMessageBroker, for operators (see DeadLetterQueue). */
export class KafkaDeadLetterQueue implements DeadLetterQueue {
  constructor(
    private readonly kafka: Kafka,
    private readonly topicName: (logical: string) => string,
    private readonly logicalTopic: (physical: string) => string,
  ) {}

  async listDeadLetters(topic: string): Promise<DeadLetter[]> {
    const dlq = this.topicName(deadLetterTopicOf(topic));
    // A throw-away group reads from the start and is deleted afterwards: listing moves nothing.
    const groupId = this.topicName(`dlq-inspect.${randomBytes(6).toString('hex')}`);
    const letters: DeadLetter[] = [];
    await this.withAdmin(async (admin) => {
      const ends = await endOffsets(admin, dlq);
      await this.readUntil(dlq, groupId, startsOf(ends), ends, async (partition, message) => {
        letters.push(this.toDeadLetter(partition, message));
      });
      await admin.deleteGroups([groupId]).catch(() => undefined);
    });
    return letters.sort((a, b) => a.deadLetteredAt.localeCompare(b.deadLetteredAt));
  }

  async replayDeadLetters(topic: string): Promise<DeadLetterReplay> {
    const dlq = this.topicName(deadLetterTopicOf(topic));
    // Only ever to the topic the operator named: a dead letter's headers are written by whoever
    // wrote the dead letter, so its source-topic header is a claim to check, never a destination.
    const destination = this.topicName(topic);
    // One group per source topic remembers what was replayed, so a second replay sends only
    // newer dead letters. The end is fixed first: letters that fail again and come back during
    // this replay wait for the next one instead of looping.
    const groupId = this.topicName(replayGroupOf(topic));
    let replayed = 0;
    const refused: DeadLetterReplay['refused'] = [];
    const producer = this.kafka.producer({ allowAutoTopicCreation: false, idempotent: false });
    await producer.connect();
    try {
      await this.withAdmin(async (admin) => {
        const ends = await endOffsets(admin, dlq);
        const committed = new Map((await admin.fetchOffsets({ groupId, topics: [dlq] }))[0]?.partitions.map((entry) => [entry.partition, entry.offset]) ?? []);
        const starts = new Map(
          [...ends].map(([partition, range]) => {
            const offset = committed.get(partition);
            return [partition, offset === undefined || offset === '-1' ? range.low : BigInt(offset)];
          }),
        );
        await this.readUntil(dlq, groupId, starts, ends, async (partition, message, consumer) => {
          const headers = stringHeaders(message.headers);
          const refusal = replayRefusal(headers, message.value, destination);
          if (refusal === null) {
            const kept: IHeaders = {};
            for (const [name, value] of Object.entries(headers)) if (!name.startsWith('dlq-')) kept[name] = value;
            kept['dlq-replayed-from'] = `${dlq}[${partition}]@${message.offset}`;
            await producer.send({ topic: destination, acks: -1, messages: [{ key: message.key, value: message.value, headers: kept }] });
            replayed += 1;
          } else {
            // Passed over for good (committed like a replayed one): it stays in the dead-letter
            // topic for `list` and for whoever investigates how it got there.
            refused.push({ partition, offset: message.offset, reason: refusal });
          }
          await consumer.commitOffsets([{ topic: dlq, partition, offset: (BigInt(message.offset) + 1n).toString() }]);
        });
      });
    } finally {
      await producer.disconnect();
    }
    return { replayed, refused };
  }

  /**
   * Reads `topic` up to (not including) each partition's end offset. The group resumes at its
   * committed offsets, or at the beginning when it has none, which is where `starts` says it
   * is: `starts` only tells whether there is anything to read.
   */
  private async readUntil(
    topic: string,
    groupId: string,
    starts: Map<number, bigint>,
    ends: Map<number, { low: bigint; high: bigint }>,
    onMessage: (partition: number, message: KafkaMessage, consumer: Consumer) => Promise<void>,
  ): Promise<void> {
    const remaining = new Set([...ends].filter(([partition, range]) => (starts.get(partition) ?? range.low) < range.high).map(([partition]) => partition));
    if (remaining.size === 0) return;
    const consumer = this.kafka.consumer({ groupId, sessionTimeout: 10_000, heartbeatInterval: 2_000, maxWaitTimeInMs: 200, allowAutoTopicCreation: false });
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [topic], fromBeginning: true });
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`reading ${topic} did not reach its end within ${READ_TIMEOUT_MS} ms`)), READ_TIMEOUT_MS);
        consumer
          .run({
            autoCommit: false,
            eachMessage: async ({ partition, message }) => {
              const end = ends.get(partition)?.high ?? 0n;
              const offset = BigInt(message.offset);
              if (offset >= end) return;
              await onMessage(partition, message, consumer);
              if (offset + 1n >= end) remaining.delete(partition);
              if (remaining.size === 0) {
                clearTimeout(timer);
                resolve();
              }
            },
          })
          .catch(reject);
      });
    } finally {
      await consumer.disconnect();
    }
  }

  private toDeadLetter(partition: number, message: KafkaMessage): DeadLetter {
    const headers = stringHeaders(message.headers);
    return {
      sourceTopic: this.logicalTopic(headers['dlq-source-topic'] ?? ''),
      sourcePartition: Number(headers['dlq-source-partition'] ?? -1),
      sourceOffset: headers['dlq-source-offset'] ?? '',
      partition,
      offset: message.offset,
      key: message.key?.toString('utf8') ?? null,
      messageId: headers['message-id'] ?? null,
      messageType: headers['message-type'] ?? null,
      attempts: Number(headers['dlq-attempts'] ?? 0),
      error: headers['dlq-error'] ?? '',
      deadLetteredAt: new Date(Number(message.timestamp)).toISOString(),
    };
  }

  private withAdmin<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    return withKafkaAdmin(this.kafka, work);
  }
}

/** Broker answers that mean "not settled yet", not "wrong". */
const SETTLING_ANSWERS = new Set(['NOT_LEADER_FOR_PARTITION', 'LEADER_NOT_AVAILABLE', 'UNKNOWN_TOPIC_OR_PARTITION']);

async function endOffsets(admin: Admin, topic: string): Promise<Map<number, { low: bigint; high: bigint }>> {
  // Asked first: fetching offsets of a missing topic retries for many seconds before failing.
  if (!(await admin.listTopics()).includes(topic))
    throw new Error(`there is no dead-letter topic ${topic}: is the topic name right, and has the service that consumes it started?`);
  // A dead-letter topic made a moment ago (its first poison message) may not have a leader yet:
  // the broker answers NOT_LEADER / LEADER_NOT_AVAILABLE until it settles, which kafkajs's own
  // retry of ListOffsets does not wait out. Retried here, briefly.
  const offsets = await backOff(() => admin.fetchTopicOffsets(topic), {
    numOfAttempts: 10,
    startingDelay: 100,
    maxDelay: 2_000,
    retry: (error: { type?: string }) => SETTLING_ANSWERS.has(error.type ?? ''),
  });
  return new Map(offsets.map((entry) => [entry.partition, { low: BigInt(entry.low), high: BigInt(entry.high) }]));
}

function startsOf(ends: Map<number, { low: bigint; high: bigint }>): Map<number, bigint> {
  return new Map([...ends].map(([partition, range]) => [partition, range.low]));
}

function stringHeaders(headers: IHeaders | undefined): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    const single = Array.isArray(value) ? value[value.length - 1] : value;
    result[name] = Buffer.isBuffer(single) ? single.toString('utf8') : String(single);
  }
  return result;
}

/**
 * Why a dead letter must not go back to `destination`, or null when it may: its source-topic
 * header must name that very topic, and its message-type header must be the type its envelope
 * carries. Either one disagreeing means the letter was not written by the consumer error policy
 * from a message of that topic, but planted.
 */
export function replayRefusal(headers: Record<string, string>, value: Buffer | null, destination: string): string | null {
  const source = headers['dlq-source-topic'];
  if (source !== destination) return `its source-topic header names ${source === undefined ? 'no topic' : JSON.stringify(source)}, not ${destination}`;
  const declared = headers['message-type'];
  if (declared === undefined) return null; // published before the header existed: the consumer decides from the envelope
  let envelopeType: unknown;
  try {
    envelopeType = (JSON.parse(value?.toString('utf8') ?? 'null') as { type?: unknown } | null)?.type;
  } catch {
    return `its message-type header says ${JSON.stringify(declared)} but its value is not an envelope`;
  }
  return envelopeType === declared
    ? null
    : `its message-type header says ${JSON.stringify(declared)} but its envelope is ${JSON.stringify(envelopeType ?? null)}`;
}
