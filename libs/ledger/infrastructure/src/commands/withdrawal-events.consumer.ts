import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  WITHDRAWAL_EXTERNAL_EVENT_CONTRACT,
  WITHDRAWAL_EXTERNAL_EVENT_TYPES,
  WITHDRAWALS_TOPICS,
  withdrawalHoldId,
  type WithdrawalExternalEventData,
} from '@mp/contracts-withdrawals';
import type { LedgerCommand } from '@mp/ledger-domain';
import { readEventPayload } from '@mp/shared-command-handling';
import { ConsumeTopicInBatches, type MessageEnvelope, type ReceivedMessage } from '@mp/shared-messaging';
import { CLOCK, type Clock } from '@mp/shared-util-clock';
import { DataSource } from 'typeorm';
import { LedgerEventIntake } from './ledger-event-intake';

export const LEDGER_WITHDRAWAL_EVENTS_INBOX = 'ledger.withdrawal-events';

/**
 * Applies withdrawals' external events to the ledger through the ledger's one intake
 * (LedgerEventIntake), like payment events: the withdrawal's creation attaches its hold (the
 * orphan sweep leaves it be), completion posts the hold (amount and network fee leave), failure
 * voids it (the money is available again). Served by the ledger's one consumer group
 * (LEDGER_CONSUMERS), which the app connects.
 */
@Controller()
export class WithdrawalEventsConsumer {
  private readonly intake: LedgerEventIntake;

  constructor(dataSource: DataSource, @Inject(CLOCK) clock: Clock) {
    this.intake = new LedgerEventIntake(
      dataSource,
      LEDGER_WITHDRAWAL_EVENTS_INBOX,
      (envelope, now) => {
        const mapped = withdrawalLedgerCommand(envelope, now);
        if (!mapped) return null;
        const { merchantId, currency, holdId, command } = mapped;
        return command === 'attach' ? { attach: { merchantId, currency, holdId } } : { move: { merchantId, currency, command } };
      },
      clock,
    );
  }

  @ConsumeTopicInBatches(WITHDRAWALS_TOPICS.events, { types: Object.values(WITHDRAWAL_EXTERNAL_EVENT_TYPES) })
  consume(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.handleAll(messages.map((message) => message.envelope));
  }

  handleAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    return this.intake.handleAll(envelopes);
  }
}

/** What a withdrawal event means to the ledger; null for events that move nothing. */
export function withdrawalLedgerCommand(
  envelope: MessageEnvelope,
  now: Date,
): { merchantId: string; currency: string; holdId: string; command: LedgerCommand | 'attach' } | null {
  const known: string[] = Object.values(WITHDRAWAL_EXTERNAL_EVENT_TYPES);
  if (!known.includes(envelope.type)) return null;
  const data = readEventPayload<WithdrawalExternalEventData>(envelope, WITHDRAWAL_EXTERNAL_EVENT_CONTRACT);
  const holdId = withdrawalHoldId(data.merchantId, data.orderId);
  const base = { merchantId: data.merchantId, currency: data.balanceAsset, holdId };
  if (envelope.type === WITHDRAWAL_EXTERNAL_EVENT_TYPES.requested) return { ...base, command: 'attach' };
  const type = envelope.type === WITHDRAWAL_EXTERNAL_EVENT_TYPES.completed ? 'PostHold' : 'VoidHold';
  return { ...base, command: { type, data: { holdId }, metadata: { now } } };
}
