import { Controller, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import {
  PAYMENTS_TOPICS,
  PAYMENT_ORDER_DISPUTE_EVENT_TYPES,
  PAYMENT_ORDER_EXTERNAL_EVENT_CONTRACT,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES,
  type PaymentOrderExternalEventData,
} from '@mp/contracts-payments';
import { ConsumeTopicInBatches, MESSAGE_BROKER, type MessageBroker, type MessagingTransportOptions, type ReceivedMessage } from '@mp/shared-messaging';
import { MessageIntake, readEventPayload } from '@mp/shared-command-handling';
import { DataSource } from 'typeorm';
import { DISPUTES_SETTINGS, type DisputesSettings } from '../disputes-settings';
import { saveOrderFacts } from '../orders/dispute-orders.store';
import { DisputeCommandIntake } from './dispute-command.intake';
import { recordOutcomeApplied } from './dispute.stream';
import { isOutcomeAppliedEvent, outcomeAppliedOfEvent, type OutcomeAppliedToOrder } from './outcome-applied';
import { ensureCatalogTopics } from '@mp/contracts-topics';

/**
 * Every disputes replica joins one group, for commands and for order events. It reads every
 * order's facts, mostly new pay-ins nobody disputes: a 10 ms fetch linger gathers them into
 * fuller batches, and a dispute open (2 % of merchant traffic) waits at most that much longer.
 */
export const DISPUTES_CONSUMERS: MessagingTransportOptions = { groupId: 'disputes.handler', startFrom: 'earliest', fetchLingerMs: 10 };

/**
 * The order events that can change a fact the dispute rules read (direction, amount, currency,
 * agent, creation time). The payer's "I have paid" changes none of them (the order stays PENDING
 * with its agent and amount), so the port passes it over undecoded; the next event's higher
 * version carries everything on.
 */
const ORDER_FACT_TYPES: readonly string[] = Object.values(PAYMENT_ORDER_EXTERNAL_EVENT_TYPES).filter(
  (type) => type !== PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.payerReportedPaid,
);

/** Endpoint 14's commands from the gateway. */
@Controller()
export class DisputeCommandConsumer {
  constructor(private readonly intake: DisputeCommandIntake) {}

  /** Commands fetched together share one transaction (see DisputeCommandIntake). */
  @ConsumeTopicInBatches(DISPUTES_TOPICS.commands)
  handle(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.intake.handleAll(messages.map((message) => message.envelope));
  }
}

/** What an order event asks of disputes: its facts, or a review's outcome now on the order. */
type OrderEventItem = { facts: PaymentOrderExternalEventData } | { outcomeApplied: OutcomeAppliedToOrder };

/**
 * What disputes learn from payments' external events:
 * - the facts of orders the rules need (direction, creation time, agent, amount, currency,
 *   status), from the order events;
 * - that payments has applied a review's outcome to the order (PaymentOrderDisputeOutcomeApplied),
 *   after which the dispute shows it. It arrives on the order's key after the order's own
 *   PaymentOrderSucceeded of an accepted dispute, so the facts here agree by then too.
 * Events fetched together are applied in one transaction through the shared intake: the facts
 * of all of them in one statement, then the outcomes in order (they read the dispute streams,
 * never the facts). No inbox: both effects are idempotent by themselves, as the callback
 * dispatcher's are. An order's facts are written only over an older version of the row, and an
 * outcome is published only past the dispute's `outcome_published_version`, under an id made
 * from the stream and version. So a redelivery changes nothing, and an inbox row per event (its
 * insert and its index entry, about 200 bytes of WAL, and in a batch one more statement) would
 * buy nothing. (Releases before this one wrote `disputes.order-events` inbox rows; they are
 * left, and nothing reads them.) Any other type on the topic is not disputes' business: the
 * port passes it over before decoding it.
 */
@Controller()
export class OrderEventsConsumer {
  private readonly intake: MessageIntake<OrderEventItem>;

  constructor(dataSource: DataSource) {
    this.intake = new MessageIntake<OrderEventItem>(dataSource, {
      inbox: null,
      read: (envelope) => {
        if (isOutcomeAppliedEvent(envelope)) return { outcomeApplied: outcomeAppliedOfEvent(envelope) };
        return ORDER_FACT_TYPES.includes(envelope.type)
          ? { facts: readEventPayload<PaymentOrderExternalEventData>(envelope, PAYMENT_ORDER_EXTERNAL_EVENT_CONTRACT) }
          : null;
      },
      apply: async (manager, events) => {
        await saveOrderFacts(
          manager,
          events.flatMap(({ item }) => ('facts' in item ? [item.facts] : [])),
        );
        for (const { item } of events) {
          if ('outcomeApplied' in item)
            await recordOutcomeApplied(manager, item.outcomeApplied.merchantId, item.outcomeApplied.orderId, item.outcomeApplied.disputeVersion);
        }
      },
    });
  }

  @ConsumeTopicInBatches(PAYMENTS_TOPICS.orderEvents, { types: [...ORDER_FACT_TYPES, PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied] })
  consume(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.intake.handleAll(messages.map((message) => message.envelope));
  }

  /**
   * A pay-in's creation and an agent's assignment come on `payments.order.progress`, in no order
   * against the events above: the facts' versions decide, so a creation that arrives after its
   * order's success changes nothing, and the success already carried everything it would have.
   */
  @ConsumeTopicInBatches(PAYMENTS_TOPICS.orderProgress, { types: ORDER_FACT_TYPES })
  consumeProgress(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.consume(messages);
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
    await ensureCatalogTopics(this.broker, 'disputes', this.settings.commandPartitions);
  }
}
