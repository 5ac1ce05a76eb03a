// The broker adapter's producer side: group-committed publishing, and a producer that forgets deleted topics.
import { Partitioners, type Producer } from 'kafkajs';
import { messageTelemetryHeaders } from '@mp/shared-telemetry';
import { MESSAGE_SCHEMA_VERSION_HEADER, MESSAGE_TYPE_HEADER } from './kafka-message-headers';
import { KafkaTopicAdmin } from './kafka-topic-admin';
import type { OutgoingMessage } from '../messaging-port';

interface QueuedPublish {
  messages: OutgoingMessage[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A cap on one coalesced produce request; one call's own messages are never split. */
const PUBLISH_BATCH_MESSAGES_MAX = 500;

/** How often the topics the producer wrote to are checked for deleted ones (forgetDeletedTopics); kafkajs refreshes their metadata every five minutes. */
const PRODUCER_TOPICS_CHECK_MS = 60_000;

/** Publishing through one producer, replaced when a topic it wrote to is deleted. */
export abstract class KafkaPublisher extends KafkaTopicAdmin {
  protected producer: Producer = this.newProducer();
  /** Topics (Kafka names) this producer has written to: kafkajs keeps asking for their metadata. */
  private producerTopics = new Set<string>();
  private producerTopicsCheckedAt = 0;
  private readonly publishQueue: QueuedPublish[] = [];
  private publishing = false;

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

  async connect(): Promise<void> {
    await this.producer.connect();
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
}
