import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import {
  COMMAND_REPLY_TYPE,
  GATEWAY_REPLIES_TOPIC,
  PAYMENT_COMMAND_SCHEMA_VERSION,
  PAYMENTS_TOPICS,
  type CommandReplyData,
  type PaymentCommandType,
} from '@mp/contracts-payments';
import { createEnvelope, MESSAGE_BROKER, type MessageBroker, type ReceivedMessage, type Subscription } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';

interface PendingCommand {
  resolve: (reply: unknown) => void;
}

/** Where a command goes other than payments (the default): its topic and schema version. */
export interface CommandRoute {
  topic: string;
  schemaVersion: number;
}

/**
 * Sends a command to the payments service (or, with a `route`, another service that answers on
 * `gateway.replies` the same way, e.g. disputes) through Kafka and waits for its outcome.
 *
 * Why not Nest's ClientKafka.send: its reply partitions move on every rebalance and replies
 * in flight are lost (nestjs/nest#2984). Here every gateway replica reads the whole replies
 * topic in a consumer group of its own, so no rebalance of another replica can take its
 * replies away, and it keeps only the replies to commands it sent (matched by causation id).
 * A reply that comes too late is dropped; the merchant got 503 and retries with the same
 * order_id, which the payments service answers idempotently.
 */
@Injectable()
export class PaymentCommandBus implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PaymentCommandBus.name);
  private readonly pending = new Map<string, PendingCommand>();
  private subscription: Subscription | null = null;

  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.broker.ensureTopics([
      { topic: PAYMENTS_TOPICS.commands, partitions: this.settings.commandPartitions },
      { topic: DISPUTES_TOPICS.commands, partitions: this.settings.commandPartitions },
      { topic: GATEWAY_REPLIES_TOPIC, partitions: 1 },
    ]);
    this.subscription = await this.broker.subscribe({
      groupId: `gateway.replies.${this.settings.instanceId}`,
      topics: [GATEWAY_REPLIES_TOPIC],
      startFrom: 'latest',
      handler: async (message) => this.onReply(message),
    });
    await this.subscription.ready;
    this.logger.log(`waiting for replies as ${this.settings.instanceId}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async execute<Reply = CommandReplyData>(type: PaymentCommandType | string, data: unknown, options: { key: string; subject: string; correlationId: string; route?: CommandRoute }): Promise<Reply> {
    const route = options.route ?? { topic: PAYMENTS_TOPICS.commands, schemaVersion: PAYMENT_COMMAND_SCHEMA_VERSION };
    const command = createEnvelope({
      type,
      schemaVersion: route.schemaVersion,
      source: 'gateway',
      subject: options.subject,
      data,
      correlationId: options.correlationId,
      replyTo: GATEWAY_REPLIES_TOPIC,
    });
    let timer: NodeJS.Timeout | undefined;
    const reply = new Promise<Reply>((resolve, reject) => {
      this.pending.set(command.id, { resolve: (value) => resolve(value as Reply) });
      timer = setTimeout(() => reject(unavailable('The payments service did not answer in time')), this.settings.commandTimeoutMs);
    });
    try {
      await this.broker.publish([{ topic: route.topic, key: options.key, envelope: command }]);
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

function unavailable(message: string): DomainError {
  return new DomainError('SERVICE_UNAVAILABLE', `${message}; retrying with the same order_id is safe and never creates a second order`);
}
