/** Order states merchants see (docs/api). Finished = the last four. */
export const PAYMENT_ORDER_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;
export type PaymentOrderStatus = (typeof PAYMENT_ORDER_STATUSES)[number];

export type PaymentDirection = 'incoming' | 'outgoing';

/** Internal progress of an unfinished order, shown in an extra field (docs/api/states.md). */
export type PaymentOrderSubStatus = 'awaiting_agent' | 'agent_assigned' | 'payer_reported_paid' | null;

/**
 * The order state object as the API returns it (endpoint 3, list items, callbacks). Between
 * services `amount` and `fee` are decimal strings so no precision is lost; the gateway writes
 * them to merchants as JSON numbers with the same digits.
 */
export interface PaymentOrderView {
  order_id: string;
  direction: PaymentDirection;
  status: PaymentOrderStatus;
  sub_status: PaymentOrderSubStatus;
  amount: string;
  fee: string;
  currency: string;
  country: string;
  method: string;
  callback_url: string;
  /** Incoming orders: where the payer is sent. */
  redirect_url?: string;
  /** Incoming orders: the order's own return URL (null: the merchant profile's `default_return_url` applies). */
  return_url?: string | null;
  /** Outgoing orders: the recipient account. */
  account_number?: string;
  failure_reason: string | null;
  /** The merchant's own reference data, as sent on create (`{}` when none). */
  metadata: Record<string, string>;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

/** What operators see of any order: the merchant's view with the merchant, the agent and the receipts. */
export interface BackofficeOrderView extends PaymentOrderView {
  merchant_id: string;
  agent_id: string | null;
  receipts: ReceiptView[];
}

/**
 * What an agent sees of an order: what it needs to pay or be paid, nothing of the merchant's
 * integration. No `callback_url` (the merchant's endpoint), no `redirect_url` (it carries
 * the payer's token: whoever holds it can act as the payer), and neither the merchant's
 * `return_url` nor its `metadata` (its own reference data, e.g. customer ids).
 */
export type AgentOrderView = Omit<BackofficeOrderView, 'callback_url' | 'redirect_url' | 'return_url' | 'metadata'>;

export function agentViewOf(view: BackofficeOrderView): AgentOrderView {
  const { callback_url: _callbackUrl, redirect_url: _redirectUrl, return_url: _returnUrl, metadata: _metadata, ...agentView } = view;
  return agentView;
}

/** Endpoint 7 entries: a transfer confirmation the agent uploaded for a payout. */
export interface ReceiptView {
  receipt_id: string;
  file_name: string;
  content_type: string;
  size_bytes: number;
  uploaded_at: string;
}
