/**
 * Events of the payment-order aggregate as they appear on `payments.order.events` (the data of
 * the payments decider's events). Every event after creation carries the order's identity,
 * direction, amount and fee in minor units, so consumers such as the ledger need no lookup.
 */
export const PAYMENT_ORDER_EVENT_TYPES = {
  incomingPaymentCreated: 'IncomingPaymentCreated',
  outgoingPaymentCreated: 'OutgoingPaymentCreated',
  agentAssigned: 'PaymentOrderAgentAssigned',
  incomingPaymentMarkedPaid: 'IncomingPaymentMarkedPaid',
  succeeded: 'PaymentOrderSucceeded',
  failed: 'PaymentOrderFailed',
  cancelled: 'PaymentOrderCancelled',
  expired: 'PaymentOrderExpired',
} as const;

export const PAYMENT_ORDER_EVENT_SCHEMA_VERSION = 1;

/** The fields every order event after creation carries. */
export interface PaymentOrderEventData {
  merchantId: string;
  orderId: string;
  direction: 'incoming' | 'outgoing';
  amountMinor: string;
  feeMinor: string;
  currency: string;
  occurredAt: string;
}

/**
 * The ledger hold that backs a payout: amount + fee, frozen before the order exists. The
 * payments service places it under this id and the ledger resolves it from the order's final
 * event, so both sides must derive it the same way: hence it lives in the contract.
 */
export function payoutHoldId(merchantId: string, orderId: string): string {
  return `payout:${merchantId}:${orderId}`;
}
