/** Order states merchants see (decisions.md). Finished = the last four. */
export const PAYMENT_ORDER_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;
export type PaymentOrderStatus = (typeof PAYMENT_ORDER_STATUSES)[number];

export type PaymentDirection = 'incoming' | 'outgoing';

/**
 * The order state object as the API returns it (endpoint 3, list items, callbacks). Between
 * services `amount` is a decimal string so no precision is lost; the gateway writes it to
 * merchants as a JSON number with the same digits.
 */
export interface PaymentOrderView {
  order_id: string;
  direction: PaymentDirection;
  status: PaymentOrderStatus;
  amount: string;
  currency: string;
  country: string;
  callback_url: string;
  /** Incoming orders: where the payer is sent. */
  redirect_url?: string;
  created_at: string;
  updated_at: string;
}
