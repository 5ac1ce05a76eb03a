import { PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION, PAYMENT_ORDER_DISPUTE_EVENT_TYPES, type PaymentOrderDisputeOutcomeAppliedData } from '@mp/contracts-payments';
import { PoisonMessageError, type MessageEnvelope } from '@mp/shared-messaging';

/** What disputes needs of payments' word that a review's outcome is on the order. */
export interface OutcomeAppliedToOrder {
  merchantId: string;
  orderId: string;
  /** The dispute stream's version at the review payments applied. */
  disputeVersion: number;
}

/**
 * Payments' PaymentOrderDisputeOutcomeApplied (payments.order.events) as disputes reads it.
 * Schema version 1 is the only one so far; an unknown one is poison (dead-lettered for an
 * operator) rather than guessed at, as for every other message disputes reads.
 */
export function outcomeAppliedOfEvent(envelope: MessageEnvelope): OutcomeAppliedToOrder {
  if (envelope.schemaVersion !== PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION) throw new PoisonMessageError(`unsupported schema version ${envelope.schemaVersion} of ${envelope.type}`);
  const data = envelope.data as Partial<PaymentOrderDisputeOutcomeAppliedData> | null;
  const { merchantId, orderId, disputeVersion } = data ?? {};
  if (typeof merchantId !== 'string' || typeof orderId !== 'string' || !Number.isInteger(disputeVersion) || (disputeVersion as number) < 1) {
    throw new PoisonMessageError(`malformed ${envelope.type} payload`);
  }
  return { merchantId, orderId, disputeVersion: disputeVersion as number };
}

export const isOutcomeAppliedEvent = (envelope: MessageEnvelope): boolean => envelope.type === PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied;
