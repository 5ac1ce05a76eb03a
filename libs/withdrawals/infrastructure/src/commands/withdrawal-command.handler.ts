import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { COMMAND_REPLY_TYPE, GATEWAY_REPLIES_TOPIC } from '@mp/contracts-payments';
import {
  WITHDRAWAL_COMMAND_SCHEMA_VERSION,
  WITHDRAWAL_COMMAND_TYPES,
  WITHDRAWALS_TOPICS,
  type WithdrawalCommandDataByType,
  type WithdrawalCommandReplyData,
  type WithdrawalCommandType,
} from '@mp/contracts-withdrawals';
import { claimInboxMessage, createEnvelope, enqueueOutbox, MESSAGE_BROKER, PoisonMessageError, StreamVersionConflictError, type MessageBroker, type MessageEnvelope, type Subscription } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import type { WithdrawalCommand } from '@mp/withdrawals-domain';
import { DataSource, type EntityManager } from 'typeorm';
import { withdrawalToView } from '../persistence/withdrawal.projection';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from '../withdrawals-settings';
import { WithdrawalExecutor } from './withdrawal.executor';

/** Every withdrawals replica joins one group, so each command is handled by one replica at a time. */
export const WITHDRAWALS_COMMANDS_GROUP = 'withdrawals.commands-handler';
const INBOX_CONSUMER = 'withdrawals.commands';
// A version conflict means another writer (the sender, an operator, a duplicate) appended to
// the same withdrawal first; re-reading and deciding again resolves it.
const APPEND_ATTEMPTS_MAX = 3;

/**
 * Handles `withdrawals.commands` like payments handles its commands: one transaction claims
 * the command in the inbox, runs it (placing the hold first for a new withdrawal) and writes
 * the events and the reply to the outbox; all of it commits or none of it does.
 */
@Injectable()
export class WithdrawalCommandHandler implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WithdrawalCommandHandler.name);
  private subscription: Subscription | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly executor: WithdrawalExecutor,
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(WITHDRAWALS_SETTINGS) private readonly settings: WithdrawalsSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.broker.ensureTopics([
      { topic: WITHDRAWALS_TOPICS.commands, partitions: this.settings.commandPartitions },
      { topic: WITHDRAWALS_TOPICS.events, partitions: this.settings.commandPartitions },
      { topic: GATEWAY_REPLIES_TOPIC, partitions: 1 },
    ]);
    this.subscription = await this.broker.subscribe({
      groupId: WITHDRAWALS_COMMANDS_GROUP,
      topics: [WITHDRAWALS_TOPICS.commands],
      startFrom: 'earliest',
      handler: (message) => this.handle(message.envelope),
    });
    await this.subscription.ready;
    this.logger.log(`consuming ${WITHDRAWALS_TOPICS.commands}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async handle(envelope: MessageEnvelope): Promise<void> {
    if (envelope.schemaVersion !== WITHDRAWAL_COMMAND_SCHEMA_VERSION) throw new PoisonMessageError(`unsupported schema version ${envelope.schemaVersion} of ${envelope.type}`);
    const resolved = this.resolve(envelope);
    for (let attempt = 1; ; attempt += 1) {
      try {
        await this.dataSource.transaction((manager) => this.handleInTransaction(manager, envelope, resolved));
        return;
      } catch (error) {
        if (error instanceof StreamVersionConflictError && attempt < APPEND_ATTEMPTS_MAX) continue;
        throw error;
      }
    }
  }

  private async handleInTransaction(manager: EntityManager, envelope: MessageEnvelope, resolved: Resolved): Promise<void> {
    if (!(await claimInboxMessage(manager, INBOX_CONSUMER, envelope.id))) return;
    let reply: WithdrawalCommandReplyData;
    try {
      const result = await this.executor.execute(manager, resolved.merchantId, resolved.orderId, resolved.command, { id: envelope.id, correlationId: envelope.correlationId });
      reply = { outcome: 'accepted', withdrawal: withdrawalToView(result.withdrawal) };
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      reply = { outcome: 'rejected', error: error.toDescription() };
    }
    if (!envelope.replyTo) return;
    await enqueueOutbox(manager, [
      {
        topic: envelope.replyTo,
        key: envelope.correlationId,
        envelope: createEnvelope({ type: COMMAND_REPLY_TYPE, schemaVersion: 1, source: 'withdrawals', subject: envelope.subject, data: reply, correlationId: envelope.correlationId, causationId: envelope.id }),
      },
    ]);
  }

  /** Turns a wire command into the domain command; a malformed payload is poison, not a rejection. */
  private resolve(envelope: MessageEnvelope): Resolved {
    const now = new Date();
    const type = envelope.type as WithdrawalCommandType;
    const data = envelope.data as Record<string, unknown> | null;
    const text = (field: string) => {
      const value = data?.[field];
      if (typeof value !== 'string' || value === '') throw new PoisonMessageError(`malformed ${envelope.type} payload: ${field}`);
      return value;
    };
    switch (type) {
      case WITHDRAWAL_COMMAND_TYPES.requestWithdrawal: {
        const amount = text('amountMinor');
        if (!/^[1-9]\d*$/.test(amount)) throw new PoisonMessageError(`malformed ${envelope.type} payload: amountMinor`);
        const request = { merchantId: text('merchantId'), orderId: text('orderId'), currency: text('currency'), address: text('address'), amountMinor: BigInt(amount) };
        return { merchantId: request.merchantId, orderId: request.orderId, command: { type: 'RequestWithdrawal', data: request, metadata: { now, assets: this.settings.assets } } };
      }
      case WITHDRAWAL_COMMAND_TYPES.resolveWithdrawal: {
        const resolution = data as unknown as WithdrawalCommandDataByType['ResolveWithdrawal'];
        const merchantId = text('merchantId');
        const orderId = text('orderId');
        const reason = `${text('reason')} (resolved by operator ${text('operatorId')})`;
        if (resolution.outcome === 'completed') {
          return { merchantId, orderId, command: { type: 'CompleteWithdrawal', data: { transactionHash: text('transactionHash'), resolvedBy: 'operator', reason }, metadata: { now } } };
        }
        if (resolution.outcome === 'failed') return { merchantId, orderId, command: { type: 'FailWithdrawal', data: { reason, resolvedBy: 'operator' }, metadata: { now } } };
        throw new PoisonMessageError(`malformed ${envelope.type} payload: outcome`);
      }
      default:
        throw new PoisonMessageError(`unknown command type ${String(type)}`);
    }
  }
}

interface Resolved {
  merchantId: string;
  orderId: string;
  command: WithdrawalCommand;
}
