import { Controller, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { PAYMENTS_TOPICS, PAYMENT_ORDER_EXTERNAL_EVENT_TYPES } from '@mp/contracts-payments';
import { WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';
import { claimInboxMessage, ConsumeTopic, MESSAGE_BROKER, PoisonMessageError, type MessageBroker, type MessageEnvelope, type MessagingTransportOptions, type ReceivedMessage } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import { DataSource } from 'typeorm';
import { LEDGER_SETTINGS, type LedgerSettings } from '../ledger-settings';
import { handleLedgerCommand } from './ledger.handling';
import { markHoldAttached } from '../holds/hold-attachment';
import { ledgerCommandFor, payoutHoldAttachedBy } from './payment-event.mapping';

/** Every ledger replica joins one group, so each order event is applied by one replica at a time. */
export const LEDGER_PAYMENT_EVENTS_GROUP = 'ledger.payment-events';
/** The inbox name of this consumer: a redelivered envelope id changes nothing. */
export const LEDGER_PAYMENT_EVENTS_INBOX = 'ledger.payment-events';

/**
 * The order events that move money or attach a payout's hold (payment-event.mapping): creation
 * and the four outcomes. Assignment, the payer's report and payments' dispute acknowledgements
 * are passed over by the port before they are decoded.
 */
const LEDGER_PAYMENT_EVENT_TYPES: readonly string[] = [
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.created,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.failed,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.cancelled,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.expired,
];

/** How the ledger app connects its consumers (`app.connectMicroservice`). */
export const LEDGER_CONSUMERS: MessagingTransportOptions = { groupId: LEDGER_PAYMENT_EVENTS_GROUP, startFrom: 'earliest' };

/** The ledger may start before payments and withdrawals: the topics must exist before the group joins them. */
@Injectable()
export class LedgerTopics implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(LEDGER_SETTINGS) private readonly settings: LedgerSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.broker.ensureTopics([
      { topic: PAYMENTS_TOPICS.orderEvents, partitions: this.settings.commandPartitions },
      { topic: WITHDRAWALS_TOPICS.events, partitions: this.settings.commandPartitions },
    ]);
  }
}

/**
 * Applies payment-order events to the ledger. One transaction claims the envelope in the
 * inbox and applies its effect, so a redelivery (same envelope id) is skipped; a copy with a
 * new id (a retried command upstream) is absorbed by the decider, which credits an order and
 * resolves a hold once.
 */
@Controller()
export class PaymentEventsConsumer {
  constructor(
    private readonly dataSource: DataSource,
  ) {}

  @ConsumeTopic(PAYMENTS_TOPICS.orderEvents, { types: LEDGER_PAYMENT_EVENT_TYPES })
  consume(@Payload() message: ReceivedMessage): Promise<void> {
    return this.handle(message.envelope);
  }

  async handle(envelope: MessageEnvelope): Promise<void> {
    const attached = payoutHoldAttachedBy(envelope);
    if (attached) {
      // No money moves: the payout's hold now has its order, so the orphan sweep leaves it be.
      await markHoldAttached(this.dataSource.manager, attached.merchantId, attached.currency, attached.holdId);
      return;
    }
    const mapped = ledgerCommandFor(envelope, new Date());
    if (!mapped) return;
    await this.dataSource.transaction(async (manager) => {
      if (!(await claimInboxMessage(manager, LEDGER_PAYMENT_EVENTS_INBOX, envelope.id))) return;
      try {
        await handleLedgerCommand({ manager }, mapped.merchantId, mapped.currency, mapped.command, { id: envelope.id, correlationId: envelope.correlationId });
      } catch (error) {
        // A business refusal of a fact that already happened (a payout's hold that does not
        // exist, a pay-in redelivered with other amounts) will not change on retry: it goes to
        // the dead-letter topic for an operator, and nothing of it is written.
        if (error instanceof DomainError) throw new PoisonMessageError(`${envelope.type} ${envelope.id} refused by the ledger: ${error.code} ${error.message}`);
        throw error;
      }
    });
  }
}
