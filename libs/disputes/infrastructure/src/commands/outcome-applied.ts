import { PAYMENT_ORDER_DISPUTE_EVENT_CONTRACT, PAYMENT_ORDER_DISPUTE_EVENT_TYPES, type PaymentOrderDisputeOutcomeAppliedData } from '@mp/contracts-payments';
import { readEventPayload } from '@mp/shared-command-handling';
import type { MessageEnvelope } from '@mp/shared-messaging';

/** What disputes needs of payments' word that a review's outcome is on the order. */
export interface OutcomeAppliedToOrder {
  merchantId: string;
  orderId: string;
  /** The dispute stream's version at the review payments applied. */
  disputeVersion: number;
}

/**
 * Payments' PaymentOrderDisputeOutcomeApplied (payments.order.events) as disputes reads it.
 * Checked against its contract (`readEventPayload`): an unknown schema version or a malformed
 * payload is poison (dead-lettered for an operator) rather than guessed at, as for every other
 * message disputes reads.
 */
export function outcomeAppliedOfEvent(envelope: MessageEnvelope): OutcomeAppliedToOrder {
  const { merchantId, orderId, disputeVersion } = readEventPayload<PaymentOrderDisputeOutcomeAppliedData>(envelope, PAYMENT_ORDER_DISPUTE_EVENT_CONTRACT);
  return { merchantId, orderId, disputeVersion };
}

export const isOutcomeAppliedEvent = (envelope: MessageEnvelope): boolean => envelope.type === PAYMENT_ORDER_DISPUTE_EVENT_TYPES.disputeOutcomeApplied;
