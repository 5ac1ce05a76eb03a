// The broker adapter's base: the kafkajs client, namespaced names, and topic, group and ACL administration.
import { backOff } from 'exponential-backoff';
import { Kafka, logLevel, type Admin } from 'kafkajs';
import { printProcessWarningsFiltered } from '@mp/shared-telemetry';
import { kafkaLogLine } from './kafka-log';
import { fixKafkajsRequestQueueIdleTimer } from './kafka-request-queue';
import { KafkaDeadLetterQueue } from './kafka-dead-letters';
import { aclsOf, reconcileAcls, type KafkaAccess } from './kafka-access';
import { withKafkaAdmin } from './kafka-admin';
import { kafkajsSecurity, type KafkaBrokerOptions } from './kafka-broker-options';
import { deadLetterTopicOf, type DeadLetterQueue, type TopicSpec } from '../messaging-port';

// Before any connection exists: kafkajs's request queues otherwise wake every process 1,000 times a second per connection.
fixKafkajsRequestQueueIdleTimer();

/** What every side of the broker adapter shares: the client, its log, topic names in the namespace, and administration. */
export abstract class KafkaTopicAdmin {
  protected readonly kafka: Kafka;
  protected readonly log: NonNullable<KafkaBrokerOptions['log']>;

  constructor(protected readonly options: KafkaBrokerOptions) {
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
  }

  protected topicName(topic: string): string {
    return this.options.namespace ? `${this.options.namespace}.${topic}` : topic;
  }

  protected logicalTopic(topic: string): string {
    const prefix = this.options.namespace ? `${this.options.namespace}.` : '';
    return topic.startsWith(prefix) ? topic.slice(prefix.length) : topic;
  }

  /** The dead-letter topics of this broker's namespace, for operators' tools. */
  deadLetters(): DeadLetterQueue {
    return new KafkaDeadLetterQueue(
      this.kafka,
      (topic) => this.topicName(topic),
      (topic) => this.logicalTopic(topic),
    );
  }

  /** Runs `work` on a short-lived admin client (topic administration is rare: start-up, a miss). */
  protected withAdmin<T>(work: (admin: Admin) => Promise<T>): Promise<T> {
    return withKafkaAdmin(this.kafka, work);
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
      await waitForLeaders(
        admin,
        missing.map((spec) => this.topicName(spec.topic)),
      );
    });
  }

  /**
   * Makes the broker's ACLs for these principals exactly what `accesses` grant in this broker's
   * namespace (provisioning, as an admin principal): see kafka-access.ts.
   */
  async reconcileAccess(accesses: KafkaAccess[]): Promise<{ created: number; deleted: number }> {
    const wanted = accesses.flatMap((access) => aclsOf(access, this.options.namespace, deadLetterTopicOf));
    return this.withAdmin((admin) =>
      reconcileAcls(
        admin,
        accesses.map((access) => access.principal),
        wanted,
      ),
    );
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
