import { Controller } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION, WITHDRAWAL_EXTERNAL_EVENT_TYPES, WITHDRAWALS_TOPICS, withdrawalHoldId, type WithdrawalExternalEventData } from '@mp/contracts-withdrawals';
import type { LedgerCommand } from '@mp/ledger-domain';
import { claimInboxMessage, ConsumeTopic, PoisonMessageError, type MessageEnvelope, type ReceivedMessage } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { isKnownCurrency } from '@mp/shared-util-money';
import { DataSource } from 'typeorm';
import { markHoldAttached } from '../holds/hold-attachment';
import { handleLedgerCommand } from './ledger.handling';

export const LEDGER_WITHDRAWAL_EVENTS_INBOX = 'ledger.withdrawal-events';

/**
 * Applies withdrawals' external events to the ledger, like payment events: the withdrawal's
 * creation attaches its hold (the orphan sweep leaves it be), completion posts the hold (amount
 * and network fee leave), failure voids it (the money is available again). Inbox + the
 * decider's once-only hold resolution make redeliveries harmless. Served by the ledger's one
 * consumer group (LEDGER_CONSUMERS), which the app connects.
 */
@Controller()
export class WithdrawalEventsConsumer {
  constructor(private readonly dataSource: DataSource) {}

  @ConsumeTopic(WITHDRAWALS_TOPICS.events, { types: Object.values(WITHDRAWAL_EXTERNAL_EVENT_TYPES) })
  consume(@Payload() message: ReceivedMessage): Promise<void> {
    return this.handle(message.envelope);
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
        await handleLedgerCommand({ manager }, mapped.merchantId, mapped.currency, command, { id: envelope.id, correlationId: envelope.correlationId });
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
