import { Controller, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { PAYMENTS_TOPICS, PAYMENT_ORDER_EXTERNAL_EVENT_TYPES } from '@mp/contracts-payments';
import {
  ConsumeTopicInBatches,
  MESSAGE_BROKER,
  type MessageBroker,
  type MessageEnvelope,
  type MessagingTransportOptions,
  type ReceivedMessage,
} from '@mp/shared-messaging';
import { CLOCK, type Clock } from '@mp/shared-util-clock';
import { DataSource } from 'typeorm';
import { LEDGER_SETTINGS, type LedgerSettings } from '../ledger-settings';
import { LedgerEventIntake, type LedgerEventMeaning } from './ledger-event-intake';
import { ledgerCommandFor, payoutHoldAttachedBy } from './payment-event.mapping';
import { ensureCatalogTopics } from '@mp/contracts-topics';

/** Every ledger replica joins one group, so each order event is applied by one replica at a time. */
export const LEDGER_PAYMENT_EVENTS_GROUP = 'ledger.payment-events';
/** The inbox name of this consumer: a redelivered envelope id changes nothing. */
export const LEDGER_PAYMENT_EVENTS_INBOX = 'ledger.payment-events';

/**
 * The order events that move money or attach a payout's hold (payment-event.mapping): creation
 * and the four outcomes. Payments' dispute acknowledgements, and anything from a release that
 * published assignments and payer reports here, are passed over by the port before they are
 * decoded; pay-ins' creations, assignments and payer reports now go on payments.order.progress.
 */
const LEDGER_PAYMENT_EVENT_TYPES: readonly string[] = [
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.created,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.failed,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.cancelled,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.expired,
];

/**
 * How the ledger app connects its consumers (`app.connectMicroservice`). A 10 ms fetch linger
 * gathers credits into batches (one transaction each) at a small part of the 100 ms budget from
 * a confirmation to the balance that shows it.
 */
export const LEDGER_CONSUMERS: MessagingTransportOptions = { groupId: LEDGER_PAYMENT_EVENTS_GROUP, startFrom: 'earliest', fetchLingerMs: 10 };

/** The ledger may start before payments and withdrawals: the topics must exist before the group joins them. */
@Injectable()
export class LedgerTopics implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(LEDGER_SETTINGS) private readonly settings: LedgerSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await ensureCatalogTopics(this.broker, 'ledger', this.settings.commandPartitions);
  }
}

/**
 * Applies payment-order events to the ledger through the ledger's one intake
 * (LedgerEventIntake: inbox, batches, lock order, refusals): a payout's creation attaches its
 * hold, an outcome credits a pay-in or posts or voids a payout's hold.
 */
@Controller()
export class PaymentEventsConsumer {
  private readonly intake: LedgerEventIntake;

  constructor(dataSource: DataSource, @Inject(CLOCK) clock: Clock) {
    this.intake = new LedgerEventIntake(dataSource, LEDGER_PAYMENT_EVENTS_INBOX, paymentEventMeaning, clock);
  }

  @ConsumeTopicInBatches(PAYMENTS_TOPICS.orderEvents, { types: LEDGER_PAYMENT_EVENT_TYPES })
  consume(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.handleAll(messages.map((message) => message.envelope));
  }

  handleAll(envelopes: readonly MessageEnvelope[]): Promise<void> {
    return this.intake.handleAll(envelopes);
  }
}

function paymentEventMeaning(envelope: MessageEnvelope, now: Date): LedgerEventMeaning {
  const attach = payoutHoldAttachedBy(envelope);
  if (attach) return { attach };
  const move = ledgerCommandFor(envelope, now);
  return move && { move };
}
