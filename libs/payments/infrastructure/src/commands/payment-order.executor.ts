import { Inject, Injectable } from '@nestjs/common';
import { payoutHoldId } from '@mp/contracts-payments';
import {
  PAYMENT_ORDER_EVENT_SCHEMA_VERSION,
  decide,
  evolve,
  foldPaymentOrder,
  toPaymentOrderStreamId,
  type ExistingPaymentOrder,
  type PaymentOrder,
  type PaymentOrderCommand,
  type PaymentOrderEvent,
} from '@mp/payments-domain';
import { appendToStream, createEnvelope, enqueueOutbox, readStream, type MessageEnvelope } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import type { EntityManager } from 'typeorm';
import { LEDGER_HOLDS, type LedgerHolds } from '../ledger/ledger-holds.port';
import { saveOrderProjection } from '../persistence/payment-order.projection';
import { externalOrderEventMessages } from './external-order-events';

const SOURCE = 'payments';

export interface Causation {
  /** The id of the message or request that caused the command. */
  id: string;
  correlationId: string;
}

export interface ExecutionResult {
  order: ExistingPaymentOrder;
  events: PaymentOrderEvent[];
}

/**
 * Runs one command against one payment order inside the caller's transaction: read the
 * stream, decide, place the ledger hold a new payout needs, append, update the projection
 * and queue the events for the broker. A DomainError leaves nothing written.
 */
@Injectable()
export class PaymentOrderExecutor {
  constructor(@Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds) {}

  async loadOrder(manager: EntityManager, merchantId: string, orderId: string): Promise<{ state: PaymentOrder; version: number }> {
    const stream = await readStream(manager, toPaymentOrderStreamId(merchantId, orderId));
    return { state: foldPaymentOrder(stream.events.map(toDomainEvent)), version: stream.version };
  }

  async execute(manager: EntityManager, merchantId: string, orderId: string, command: PaymentOrderCommand, causation: Causation): Promise<ExecutionResult> {
    const { state, version } = await this.loadOrder(manager, merchantId, orderId);
    const events = decide(command, state);
    const nextState = events.reduce<PaymentOrder>(evolve, state);
    if (nextState.status === 'NotCreated') throw new DomainError('ORDER_NOT_FOUND', `No order ${orderId}`);

    const created = events.find((event) => event.type === 'OutgoingPaymentCreated');
    if (created) {
      // The hold comes first: without the funds frozen the payout must not exist (decisions.md).
      // It is idempotent by hold id, so a retry after a crash finds the same hold.
      const hold = await this.ledger.placeHold({
        hold_id: payoutHoldId(merchantId, orderId),
        merchant_id: merchantId,
        currency: nextState.currency,
        amount_minor: nextState.amountMinor.toString(),
        fee_minor: nextState.feeMinor.toString(),
        reference: { kind: 'payment_order', id: orderId },
      });
      if (hold.status !== 'pending') {
        // An earlier attempt with this order_id placed the hold and never created the order;
        // the ledger has since released it as orphaned. A payout without frozen funds must not
        // exist, so this order_id stays unused.
        throw new DomainError('DUPLICATE_ORDER', `order_id ${orderId} was used by an earlier request that did not complete and whose funds were released; send the payout with a new order_id`, [
          { field: 'order_id', issue: 'already used by an abandoned request' },
        ]);
      }
    }
    if (events.length === 0) return { order: nextState, events };

    const envelopes = events.map((event) =>
      createEnvelope({
        type: event.type,
        schemaVersion: PAYMENT_ORDER_EVENT_SCHEMA_VERSION,
        source: SOURCE,
        subject: `merchant:${merchantId}/order:${orderId}`,
        data: event.data,
        correlationId: causation.correlationId,
        causationId: causation.id,
      }),
    );
    const streamId = toPaymentOrderStreamId(merchantId, orderId);
    const newVersion = await appendToStream(manager, streamId, version, envelopes);
    await saveOrderProjection(manager, nextState, newVersion);
    // Only external events leave payments; the internal ones above stay in its event store.
    await enqueueOutbox(manager, externalOrderEventMessages(state, version, events, causation));
    return { order: nextState, events };
  }
}

export function toDomainEvent(envelope: MessageEnvelope): PaymentOrderEvent {
  return { type: envelope.type, data: envelope.data } as PaymentOrderEvent;
}
