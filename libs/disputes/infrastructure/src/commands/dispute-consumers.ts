import { Controller, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import { PAYMENTS_TOPICS, PAYMENT_ORDER_DISPUTE_EVENT_TYPES, PAYMENT_ORDER_EXTERNAL_EVENT_TYPES, type PaymentOrderExternalEventData } from '@mp/contracts-payments';
import { claimInboxMessage, ConsumeTopic, MESSAGE_BROKER, type MessageBroker, type MessagingTransportOptions, type ReceivedMessage } from '@mp/shared-messaging';
import { DataSource } from 'typeorm';
import { DISPUTES_SETTINGS, type DisputesSettings } from '../disputes-settings';
import { saveOrderFacts } from '../orders/dispute-orders.store';
import { DisputeCommandHandler } from './dispute-command.handler';
import { applyOutcomeAppliedToOrder, isOutcomeAppliedEvent, outcomeAppliedOfEvent } from './outcome-applied';

/** Every disputes replica joins one group, for commands and for order events. */
export const DISPUTES_CONSUMERS: MessagingTransportOptions = { groupId: 'disputes.handler', startFrom: 'earliest' };

const ORDER_EVENTS_INBOX = 'disputes.order-events';
/**
 * The order events that can change a fact the dispute rules read (direction, amount, currency,
 * agent, creation time). The payer's "I have paid" changes none of them (the order stays PENDING
 * with its agent and amount), so the port passes it over undecoded; the next event's higher
 * version carries everything on.
 */
const ORDER_FACT_TYPES: readonly string[] = Object.values(PAYMENT_ORDER_EXTERNAL_EVENT_TYPES).filter((type) => type !== PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.payerReportedPaid);

/** Endpoint 14's commands from the gateway. */
@Controller()
export class DisputeCommandConsumer {
  constructor(private readonly handler: DisputeCommandHandler) {}

  @ConsumeTopic(DISPUTES_TOPICS.commands)
  handle(@Payload() message: ReceivedMessage): Promise<void> {
    return this.handler.handle(message.envelope);
  }
}

/**
 * What disputes learn from payments' external events:
 * - the facts of orders the rules need (direction, creation time, agent, amount, currency,
 *   status), from the order events;
 * - that payments has applied a review's outcome to the order (PaymentOrderDisputeOutcomeApplied),
 *   after which the dispute shows it. It arrives on the order's key after the order's own
 *   PaymentOrderSucceeded of an accepted dispute, so the facts here agree by then too.
 * A redelivery is skipped by the inbox, an event older than the row by its version; any other
 * type on the topic is not disputes' business: the port passes it over before decoding it.
 */
@Controller()
export class OrderEventsConsumer {
  constructor(private readonly dataSource: DataSource) {}

  @ConsumeTopic(PAYMENTS_TOPICS.orderEvents, { types: [...ORDER_FACT_TYPES, PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied] })
  async consume(@Payload() message: ReceivedMessage): Promise<void> {
    const { envelope } = message;
    if (isOutcomeAppliedEvent(envelope)) return applyOutcomeAppliedToOrder(this.dataSource, ORDER_EVENTS_INBOX, envelope, outcomeAppliedOfEvent(envelope));
    if (!ORDER_FACT_TYPES.includes(envelope.type)) return;
    await this.dataSource.transaction(async (manager) => {
      if (!(await claimInboxMessage(manager, ORDER_EVENTS_INBOX, envelope.id))) return;
      await saveOrderFacts(manager, envelope.data as PaymentOrderExternalEventData);
    });
  }
}

/** The topics disputes read and write exist before its consumers join or its relay publishes. */
@Injectable()
export class DisputesTopics implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(DISPUTES_SETTINGS) private readonly settings: DisputesSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.broker.ensureTopics([
      { topic: DISPUTES_TOPICS.commands, partitions: this.settings.commandPartitions },
      { topic: DISPUTES_TOPICS.events, partitions: this.settings.commandPartitions },
      { topic: PAYMENTS_TOPICS.orderEvents, partitions: this.settings.commandPartitions },
    ]);
  }
}
