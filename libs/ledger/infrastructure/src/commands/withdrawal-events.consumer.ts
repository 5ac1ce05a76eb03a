import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION, WITHDRAWAL_EXTERNAL_EVENT_TYPES, WITHDRAWALS_TOPICS, withdrawalHoldId, type WithdrawalExternalEventData } from '@mp/contracts-withdrawals';
import type { LedgerCommand } from '@mp/ledger-domain';
import { claimInboxMessage, MESSAGE_BROKER, PoisonMessageError, type MessageBroker, type MessageEnvelope, type Subscription } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { isKnownCurrency } from '@mp/shared-util-money';
import { DataSource } from 'typeorm';
import { markHoldAttached } from '../holds/hold-attachment';
import { LEDGER_SETTINGS, type LedgerSettings } from '../ledger-settings';
import { LedgerExecutor } from './ledger.executor';

export const LEDGER_WITHDRAWAL_EVENTS_GROUP = 'ledger.withdrawal-events';
export const LEDGER_WITHDRAWAL_EVENTS_INBOX = 'ledger.withdrawal-events';

/**
 * Applies withdrawals' external events to the ledger, like payment events: the withdrawal's
 * creation attaches its hold (the orphan sweep leaves it be), completion posts the hold (amount
 * and network fee leave), failure voids it (the money is available again). Inbox + the
 * decider's once-only hold resolution make redeliveries harmless.
 */
@Injectable()
export class WithdrawalEventsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WithdrawalEventsConsumer.name);
  private subscription: Subscription | null = null;

  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(LEDGER_SETTINGS) private readonly settings: LedgerSettings,
    private readonly dataSource: DataSource,
    private readonly executor: LedgerExecutor,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.broker.ensureTopics([{ topic: WITHDRAWALS_TOPICS.events, partitions: this.settings.commandPartitions }]);
    this.subscription = await this.broker.subscribe({
      groupId: LEDGER_WITHDRAWAL_EVENTS_GROUP,
      topics: [WITHDRAWALS_TOPICS.events],
      startFrom: 'earliest',
      handler: (message) => this.handle(message.envelope),
    });
    await this.subscription.ready;
    this.logger.log(`consuming ${WITHDRAWALS_TOPICS.events}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async handle(envelope: MessageEnvelope): Promise<void> {
    const mapped = withdrawalLedgerCommand(envelope, new Date());
    if (!mapped) return;
    if (mapped.command === 'attach') {
      await markHoldAttached(this.dataSource.manager, mapped.merchantId, mapped.currency, mapped.holdId);
      return;
    }
    const command = mapped.command;
    await this.dataSource.transaction(async (manager) => {
      if (!(await claimInboxMessage(manager, LEDGER_WITHDRAWAL_EVENTS_INBOX, envelope.id))) return;
      try {
        await this.executor.execute(manager, mapped.merchantId, mapped.currency, command, { id: envelope.id, correlationId: envelope.correlationId });
      } catch (error) {
        if (error instanceof DomainError) throw new PoisonMessageError(`${envelope.type} ${envelope.id} refused by the ledger: ${error.code} ${error.message}`);
        throw error;
      }
    });
  }
}

/** What a withdrawal event means to the ledger; null for events that move nothing. */
export function withdrawalLedgerCommand(envelope: MessageEnvelope, now: Date): { merchantId: string; currency: string; holdId: string; command: LedgerCommand | 'attach' } | null {
  const known: string[] = Object.values(WITHDRAWAL_EXTERNAL_EVENT_TYPES);
  if (!known.includes(envelope.type)) return null;
  if (envelope.schemaVersion !== WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION) throw new PoisonMessageError(`unsupported schema version ${envelope.schemaVersion} of ${envelope.type}`);
  const data = envelope.data as Partial<WithdrawalExternalEventData> | null;
  if (typeof data?.merchantId !== 'string' || typeof data.orderId !== 'string' || typeof data.balanceAsset !== 'string' || !isKnownCurrency(data.balanceAsset)) {
    throw new PoisonMessageError(`malformed ${envelope.type} ${envelope.id}: merchantId, orderId and balanceAsset are required`);
  }
  const holdId = withdrawalHoldId(data.merchantId, data.orderId);
  const base = { merchantId: data.merchantId, currency: data.balanceAsset, holdId };
  if (envelope.type === WITHDRAWAL_EXTERNAL_EVENT_TYPES.requested) return { ...base, command: 'attach' };
  const type = envelope.type === WITHDRAWAL_EXTERNAL_EVENT_TYPES.completed ? 'PostHold' : 'VoidHold';
  return { ...base, command: { type, data: { holdId }, metadata: { now } } };
}
