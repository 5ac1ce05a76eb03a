import { Controller, Inject } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import {
  DISPUTE_EXTERNAL_EVENT_CONTRACT,
  DISPUTE_EXTERNAL_EVENT_TYPES,
  DISPUTES_TOPICS,
  type DisputeCommandReplyData,
  type DisputeExternalEventData,
} from '@mp/contracts-disputes';
import {
  COMMAND_REPLY_TYPE,
  PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION,
  PAYMENT_ORDER_DISPUTE_EVENT_TYPES,
  PAYMENTS_TOPICS,
  paymentOrderKey,
  type PaymentOrderDisputeOutcomeAppliedData,
} from '@mp/contracts-payments';
import {
  ConsumeTopicInBatches,
  createEnvelope,
  enqueueOutbox,
  MESSAGE_BROKER,
  type MessageEnvelope,
  type OutgoingMessage,
  type ReceivedMessage,
} from '@mp/shared-messaging';
import { MessageIntake, readEventPayload, type ReplyPort } from '@mp/shared-command-handling';
import { DataSource, type EntityManager } from 'typeorm';
import { LEDGER_HOLDS, type LedgerHolds } from '../ledger/ledger-holds.port';
import { setOpenDispute } from '../persistence/payment-order.projection';
import { CLOCK, type Clock } from '../payments-settings';
import { loadMethodCatalog } from '../reference-data/method-catalog.store';
import { handlePaymentOrderCommand } from './payment-order.stream';

const INBOX_CONSUMER = 'payments.dispute-events';
const DISPUTE_EVENT_TYPES: ReadonlySet<string> = new Set(Object.values(DISPUTE_EXTERNAL_EVENT_TYPES));

/**
 * The disputes context's external events, as they touch orders:
 * - DisputeOpened (a first open or a reopen): the order is reported PENDING (overlay flag);
 * - DisputeRejected: the overlay ends, the order shows its own state again;
 * - DisputeAccepted: the overlay ends and the order settles as SUCCEEDED for the disputed
 *   amount (SettleIncomingPaymentByDispute), which publishes PaymentOrderSucceeded for the
 *   ledger to credit once.
 * Why the flag lives in payments (and not a lookup by the gateway): endpoints 3, 4 and 5 read
 * the order projection only, one row per order and one query per list page, so the overlay
 * costs no second round trip per order. The inbox makes a redelivery change nothing, the
 * dispute version makes an older event change nothing; all of it in one transaction.
 *
 * Read-your-writes (spec 4.9 rule 4): payments tells the others that the order now shows the
 * dispute only once that is committed:
 * - to the merchant's waiting gateway replica (the DisputeOpened envelope's `replyTo`): the 201
 *   of endpoint 14, so no read after it can find the order's old state. Sent after the commit,
 *   like every command's reply (CommandIntake says why not through the outbox);
 * - to disputes after a review's outcome, through the outbox in the same transaction, so it
 *   leaves exactly when the change is committed, and once: payments' own event
 *   PaymentOrderDisputeOutcomeApplied on `payments.order.events`, keyed by the order (after an accepted dispute's
 *   PaymentOrderSucceeded): only then does the dispute show ACCEPTED or REJECTED, so the order
 *   already agrees. An event on payments' topic, not a command on `disputes.commands` (as it was
 *   before issue 20): only the gateway's Kafka principal may write command topics.
 * Why this and not the alternatives: a synchronous HTTP call from disputes (as the ledger's
 * payout holds) would set the overlay outside the dispute's transaction, so a rolled-back open
 * would leave an order PENDING for a dispute that does not exist, and a settlement for a review
 * that never happened, with a sweep to undo it; the gateway polling payments' projection costs
 * reads per open and a bound chosen by guesswork. Here each effect stays in one transaction
 * with its cause. When payments is slow or down, the merchant gets 503 after the gateway's
 * command timeout (the dispute is open; a retry names it in PAYMENT_REJECTED
 * `dispute_already_open`) and the dispute keeps showing OPEN (the order PENDING) until payments
 * catches up from Kafka.
 */
@Controller()
export class DisputeEventsConsumer {
  private readonly intake: MessageIntake<DisputeExternalEventData>;

  constructor(
    dataSource: DataSource,
    @Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(MESSAGE_BROKER) broker: ReplyPort,
  ) {
    // Events fetched together share one transaction (one inbox statement, one outbox write); a
    // refused settlement alone is dead-lettered for an operator (it will not change on retry).
    this.intake = new MessageIntake<DisputeExternalEventData>(dataSource, {
      inbox: INBOX_CONSUMER,
      read: (envelope) =>
        DISPUTE_EVENT_TYPES.has(envelope.type) ? readEventPayload<DisputeExternalEventData>(envelope, DISPUTE_EXTERNAL_EVENT_CONTRACT) : null,
      refusedBy: 'payments',
      apply: async (manager, events) => {
        const answers: OutgoingMessage[] = [];
        for (const { envelope, item } of events) {
          const answer = await this.apply(manager, envelope, item);
          if (answer) answers.push(answer);
        }
        return answers;
      },
      replies: broker,
    });
  }

  @ConsumeTopicInBatches(DISPUTES_TOPICS.events, { types: Object.values(DISPUTE_EXTERNAL_EVENT_TYPES) })
  consume(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.intake.handleAll(messages.map((message) => message.envelope));
  }

  /** The event's effect; the answer to the open's waiting gateway replica, if one waits. */
  private async apply(manager: EntityManager, envelope: MessageEnvelope, data: DisputeExternalEventData): Promise<OutgoingMessage | null> {
    const open = envelope.type === DISPUTE_EXTERNAL_EVENT_TYPES.opened;
    // Settle first: its projection write must not be undone by the flag's version check.
    if (envelope.type === DISPUTE_EXTERNAL_EVENT_TYPES.accepted) await this.settle(manager, data, { id: envelope.id, correlationId: envelope.correlationId });
    await setOpenDispute(manager, data.merchantId, data.orderId, open, data.version);
    if (open) return answerWaitingOpen(envelope, data);
    await enqueueOutbox(manager, [outcomeApplied(envelope, data, this.clock.now())]);
    return null;
  }

  private async settle(manager: EntityManager, data: DisputeExternalEventData, causation: { id: string; correlationId: string }): Promise<void> {
    // The contract's DisputeAcceptedPayload makes the amount a positive integer string.
    const settledAmountMinor = data.settledAmountMinor as string;
    const methodCatalog = await loadMethodCatalog(manager, data.merchantId);
    // A refusal (no such incoming order) becomes poison through the intake (`refusedBy`).
    await handlePaymentOrderCommand(
      this.ledger,
      { manager },
      data.merchantId,
      data.orderId,
      {
        type: 'SettleIncomingPaymentByDispute',
        data: { disputeId: data.disputeId, amountMinor: BigInt(settledAmountMinor) },
        metadata: { now: this.clock.now(), methodCatalog },
      },
      causation,
    );
  }
}

/**
 * The 201 of the open that caused this DisputeOpened, on the replica that waits for it (matched
 * by the open command's id, the event's causation id). An event no one waits for (no `replyTo`)
 * needs no answer.
 */
function answerWaitingOpen(event: MessageEnvelope, data: DisputeExternalEventData): OutgoingMessage | null {
  if (!event.replyTo || !event.causationId) return null;
  const reply: DisputeCommandReplyData = { outcome: 'accepted', dispute: data.dispute };
  return {
    topic: event.replyTo,
    key: event.correlationId,
    envelope: createEnvelope({
      type: COMMAND_REPLY_TYPE,
      schemaVersion: 1,
      source: 'payments',
      subject: event.subject,
      data: reply,
      correlationId: event.correlationId,
      causationId: event.causationId,
    }),
  };
}

/** Tells disputes (and anyone else who cares) that the review's outcome is on the order now, so the dispute may show it. */
function outcomeApplied(event: MessageEnvelope, data: DisputeExternalEventData, now: Date): OutgoingMessage {
  const applied: PaymentOrderDisputeOutcomeAppliedData = {
    merchantId: data.merchantId,
    orderId: data.orderId,
    disputeId: data.disputeId,
    disputeVersion: data.version,
    occurredAt: now.toISOString(),
  };
  return {
    topic: PAYMENTS_TOPICS.orderEvents,
    key: paymentOrderKey(data.merchantId, data.orderId),
    envelope: createEnvelope({
      type: PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied,
      schemaVersion: PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION,
      source: 'payments',
      subject: event.subject,
      data: applied,
      correlationId: event.correlationId,
      causationId: event.id,
    }),
  };
}
