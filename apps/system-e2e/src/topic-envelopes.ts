import { randomBytes } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';

/** The envelope fields these checks read (libs/shared/messaging's envelope, which e2e specs may not import). */
export interface SeenEnvelope {
  id: string;
  type: string;
  schemaVersion: number;
  source: string;
  subject: string;
  data: unknown;
}

/**
 * Every envelope on one topic of a test system (`<runId>.<topic>`), read from the beginning up to
 * the end offsets it has when asked, by a throw-away consumer group: what any producer ever wrote
 * there, whoever consumed it since. A topic that does not exist (a dead-letter topic no consumer
 * has needed yet) holds nothing, and a value that is not JSON (a spec's deliberate poison message)
 * is no envelope: it is left out.
 */
export async function envelopesOnTopic(runId: string, topic: string, timeoutMs = 30_000): Promise<SeenEnvelope[]> {
  const physical = `${runId}.${topic}`;
  const kafka = new Kafka({ clientId: 'topic-envelopes', brokers: (process.env['KAFKA_BROKERS'] ?? '').split(','), logLevel: logLevel.NOTHING });
  const admin = kafka.admin();
  await admin.connect();
  const unread = new Map<number, bigint>();
  try {
    // Asked first: offsets of a missing topic are retried for many seconds before failing.
    if (!(await admin.listTopics()).includes(physical)) return [];
    for (const { partition, low, high } of await admin.fetchTopicOffsets(physical)) if (BigInt(high) > BigInt(low)) unread.set(partition, BigInt(high));
  } finally {
    await admin.disconnect();
  }
  const envelopes: SeenEnvelope[] = [];
  if (unread.size === 0) return envelopes;
  const consumer = kafka.consumer({ groupId: `${runId}.topic-envelopes.${randomBytes(4).toString('hex')}`, maxWaitTimeInMs: 200 });
  await consumer.connect();
  try {
    await consumer.subscribe({ topics: [physical], fromBeginning: true });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${physical} not read to its end: partitions ${[...unread.keys()].join(', ')} left`)), timeoutMs);
      void consumer.run({
        eachMessage: async ({ partition, message }) => {
          const end = unread.get(partition);
          if (end === undefined || BigInt(message.offset) >= end) return;
          const envelope = envelopeOf(message.value);
          if (envelope) envelopes.push(envelope);
          if (BigInt(message.offset) + 1n >= end) unread.delete(partition);
          if (unread.size === 0) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
  } finally {
    await consumer.disconnect();
  }
  return envelopes;
}

function envelopeOf(value: Buffer | null): SeenEnvelope | null {
  try {
    return JSON.parse(value?.toString('utf8') ?? 'null') as SeenEnvelope | null;
  } catch {
    return null;
  }
}
