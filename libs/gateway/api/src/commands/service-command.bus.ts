import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DISPUTE_COMMAND_SCHEMA_VERSION, DISPUTES_TOPICS } from '@mp/contracts-disputes';
import {
  COMMAND_REPLY_TYPE,
  gatewayReplyTopicOf,
  PAYMENT_COMMAND_SCHEMA_VERSION,
  PAYMENTS_TOPICS,
  type CommandReplyData,
  type PaymentCommandType,
} from '@mp/contracts-payments';
import { WITHDRAWAL_COMMAND_SCHEMA_VERSION, WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';
import { createEnvelope, deadLetterTopicOf, MESSAGE_BROKER, type MessageBroker, type ReceivedMessage, type Subscription } from '@mp/shared-messaging';
import { DomainError, type ErrorDescription } from '@mp/shared-util-errors';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { ReplyTopicSweeper } from './reply-topic-sweeper';
import { ensureCatalogTopics } from '@mp/contracts-topics';

interface PendingCommand {
  resolve: (reply: unknown) => void;
}

/** Where a service's commands go: its commands topic and their schema version. */
export interface CommandRoute {
  topic: string;
  schemaVersion: number;
  /** Named in the 503 when the service does not answer in time. */
  service: string;
}

export const PAYMENTS_COMMAND_ROUTE: CommandRoute = { topic: PAYMENTS_TOPICS.commands, schemaVersion: PAYMENT_COMMAND_SCHEMA_VERSION, service: 'payments' };
export const WITHDRAWALS_COMMAND_ROUTE: CommandRoute = {
  topic: WITHDRAWALS_TOPICS.commands,
  schemaVersion: WITHDRAWAL_COMMAND_SCHEMA_VERSION,
  service: 'withdrawals',
};
export const DISPUTES_COMMAND_ROUTE: CommandRoute = { topic: DISPUTES_TOPICS.commands, schemaVersion: DISPUTE_COMMAND_SCHEMA_VERSION, service: 'disputes' };

/** Reply topics hold answers for seconds; an hour is ample for reading and diagnosis. */
const REPLY_TOPIC_RETENTION_MS = 60 * 60 * 1000;

/**
 * Sends a command to a service (payments, withdrawals, disputes) through Kafka and waits for its
 * outcome on this replica's own reply topic.
 *
 * Why not Nest's ClientKafka.send: its reply partitions move on every rebalance and replies
 * in flight are lost (nestjs/nest#2984). Here every gateway replica has a reply topic of its own,
 * `gateway.replies.<instance id>` (named in each command's `replyTo`), read by a consumer group
 * of its own: no rebalance of another replica can take its replies away, and reply traffic per
 * replica does not grow with the number of replicas. Replies are matched by causation id. A
 * reply that comes too late is dropped; the merchant got 503 and retries with the same
 * order_id, which the services answer idempotently. Topics do not pile up over restarts: a
 * replica deletes its own on a clean stop, and sweeps those of crashed ones
 * (docs/decisions/gateway-reply-topics.md).
 */
@Injectable()
export class ServiceCommandBus implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ServiceCommandBus.name);
  private readonly pending = new Map<string, PendingCommand>();
  private subscription: Subscription | null = null;
  private readonly replyTopic: string;
  private readonly sweeper: ReplyTopicSweeper;
  private sweepTimer: NodeJS.Timeout | null = null;
  private sweeping: Promise<void> | null = null;

  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {
    this.replyTopic = gatewayReplyTopicOf(settings.instanceId);
    this.sweeper = new ReplyTopicSweeper(broker, this.replyTopic, settings.replyTopicGraceMs);
  }

  async onApplicationBootstrap(): Promise<void> {
    await ensureCatalogTopics(this.broker, 'gateway', this.settings.commandPartitions, [
      { topic: this.replyTopic, partitions: 1, retentionMs: REPLY_TOPIC_RETENTION_MS },
    ]);
    this.subscription = await this.broker.subscribe({
      groupId: this.replyTopic,
      topics: [this.replyTopic],
      startFrom: 'latest',
      handler: async (message) => this.onReply(message),
    });
    await this.subscription.ready;
    this.logger.log(`waiting for replies on ${this.replyTopic}`);
    this.sweepTimer = setInterval(() => void this.sweepOnce(), this.settings.replyTopicSweepIntervalMs);
    this.sweepTimer.unref();
  }

  /**
   * A clean stop deletes this replica's reply topic (its dead-letter topic and group too): the
   * next start has a new instance id and a new topic, so nothing else would. Replies still on
   * their way are dropped by the services that send them (ReplySender); nobody would read
   * them. A crashed replica cannot do this: the other replicas' sweeper does (ReplyTopicSweeper).
   */
  async onApplicationShutdown(): Promise<void> {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await this.sweeping;
    await this.subscription?.stop();
    if (!this.subscription) return;
    await this.broker
      .deleteTopicsAndGroups({ topics: [this.replyTopic, deadLetterTopicOf(this.replyTopic)], groups: [this.replyTopic] })
      .then(() => this.logger.log(`deleted its reply topic ${this.replyTopic}`))
      .catch((error: unknown) => this.logger.warn(`could not delete its reply topic ${this.replyTopic} (the other replicas' sweep will): ${String(error)}`));
  }

  /**
   * One sweep of the reply topics of replicas that are gone; first this replica's own topic is
   * made again if it went missing (a sweep that misjudged it, an operator's mistake), so a
   * replica heals itself within one interval. A failed pass is retried on the next tick.
   */
  private async sweepOnce(): Promise<void> {
    if (this.sweeping) return;
    this.sweeping = (async () => {
      try {
        await this.broker.ensureTopics([{ topic: this.replyTopic, partitions: 1, retentionMs: REPLY_TOPIC_RETENTION_MS }]);
        const deleted = await this.sweeper.sweep();
        if (deleted.length > 0)
          this.logger.log(
            `deleted the reply topics of ${deleted.length} gateway replica(s) gone for longer than ${this.settings.replyTopicGraceMs} ms: ${deleted.join(', ')}`,
          );
      } catch (error) {
        this.logger.warn(`reply topic sweep failed (retried in ${this.settings.replyTopicSweepIntervalMs} ms): ${String(error)}`);
      } finally {
        this.sweeping = null;
      }
    })();
    await this.sweeping;
  }

  async execute(type: PaymentCommandType, data: unknown, options: { key: string; subject: string; correlationId: string }): Promise<CommandReplyData> {
    return this.send<CommandReplyData>(PAYMENTS_COMMAND_ROUTE, type, data, options);
  }

  /**
   * Sends a command and answers with its accepted reply; a refusal becomes the DomainError it
   * describes, which the error filter answers. Every command a request sends goes through here.
   */
  async run<TReply extends CommandOutcome>(
    route: CommandRoute,
    type: string,
    data: unknown,
    options: CommandOptions,
  ): Promise<Exclude<TReply, RejectedCommand>> {
    const outcome = await this.send<TReply>(route, type, data, options);
    if (isRejected(outcome)) throw DomainError.fromDescription(outcome.error);
    return outcome as Exclude<TReply, RejectedCommand>;
  }

  /** Any service's command; the reply's shape is the route's contract (`TReply`). */
  async send<TReply>(route: CommandRoute, type: string, data: unknown, options: CommandOptions): Promise<TReply> {
    const command = createEnvelope({
      type,
      schemaVersion: route.schemaVersion,
      source: 'gateway',
      subject: options.subject,
      data,
      correlationId: options.correlationId,
      replyTo: this.replyTopic,
    });
    let timer: NodeJS.Timeout | undefined;
    const reply = new Promise<TReply>((resolve, reject) => {
      this.pending.set(command.id, { resolve: (value) => resolve(value as TReply) });
      timer = setTimeout(() => reject(unavailable(`The ${route.service} service did not answer in time`)), this.settings.commandTimeoutMs);
    });
    const published = this.broker.publish([{ topic: route.topic, key: options.key, envelope: command }]);
    // The timeout covers publishing too: with the broker down the producer retries for longer
    // than it, and the caller gets its 503 at the timeout, not when the producer gives up.
    // Whichever of the two settles last is left unawaited, so it gets a handler here: an
    // unhandled rejection ends the process (a Kafka restart in the chaos run took the gateway down).
    published.catch(() => undefined);
    reply.catch(() => undefined);
    try {
      await Promise.race([published, reply]);
      return await reply;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      this.logger.warn(`could not publish ${type}: ${String(error)}`);
      throw unavailable('The request could not be queued');
    } finally {
      clearTimeout(timer);
      this.pending.delete(command.id);
    }
  }

  private onReply(message: ReceivedMessage): void {
    const { envelope } = message;
    if (envelope.type !== COMMAND_REPLY_TYPE || envelope.causationId === null) return;
    this.pending.get(envelope.causationId)?.resolve(envelope.data);
  }
}

/** What every service's command reply is: accepted with its result, or rejected with the error to answer. */
type RejectedCommand = { outcome: 'rejected'; error: ErrorDescription };
type CommandOutcome = RejectedCommand | { outcome: 'accepted' };

/** Partitioning key, log subject and the request's correlation id of one command. */
export interface CommandOptions {
  key: string;
  subject: string;
  correlationId: string;
}

function isRejected(outcome: CommandOutcome): outcome is RejectedCommand {
  return outcome.outcome === 'rejected';
}

function unavailable(message: string): DomainError {
  return new DomainError('SERVICE_UNAVAILABLE', `${message}; retrying with the same order_id is safe and never creates a second order`);
}
