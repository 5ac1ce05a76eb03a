/**
 * Events of the payment-order aggregate as they appear on `payments.order.events`.
 * Old payload shapes are frozen under a versioned name when a schema changes.
 */
export interface IncomingPaymentCreatedV1 {
  merchantId: string;
  orderId: string;
  amountMinor: string;
  currency: string;
  country: string;
  callbackUrl: string;
  payerPageToken: string;
  createdAt: string;
}

export const PAYMENT_ORDER_EVENT_TYPES = {
  incomingPaymentCreated: 'IncomingPaymentCreated',
} as const;

export const PAYMENT_ORDER_EVENT_SCHEMA_VERSION = 1;
