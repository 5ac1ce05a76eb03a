import type { AgentOrderView, PaymentOrderStatus, PaymentOrderView, ReceiptView } from './order-view';

/**
 * The payments service's internal HTTP API (not exposed to merchants), used by the gateway.
 * Amounts are integer minor units as decimal strings. Errors use the platform error body
 * `{code, message, details}`. Every id in a path is checked against its pattern
 * (`@mp/shared-util-validation`): a malformed id is answered like an unknown one.
 */

/** A method entry as the payments service stores it and operators send it (minor units as strings). */
export interface StoredMethodEntry {
  method: string;
  direction: 'incoming' | 'outgoing';
  country: string;
  currency: string;
  fee_rate_basis_points: number;
  fee_fixed_minor: string;
  min_amount_minor: string;
  max_amount_minor: string;
  expiry_minutes: number;
}

/** GET and PUT /internal/merchants/:merchantId/methods answer with the merchant's catalog. */
export interface MethodCatalogView {
  data: StoredMethodEntry[];
}

/** PUT /internal/merchants/:merchantId/methods — replaces the merchant's catalog. */
export interface PutMethodsRequest {
  entries: StoredMethodEntry[];
}

/** A method, country and currency an agent pays out or receives in. */
export interface AgentServiceArea {
  method: string;
  country: string;
  currency: string;
}

/** PUT /internal/agents/:agentId — creates or replaces an agent's profile. */
export interface PutAgentRequest {
  display_name: string;
  payment_details: string;
  serves: AgentServiceArea[];
  active?: boolean;
}

/** The stored profile, as PUT /internal/agents/:agentId answers. */
export interface AgentProfileView {
  agent_id: string;
  display_name: string;
  payment_details: string;
  serves: AgentServiceArea[];
  active: boolean;
}

export interface AgentProfileList {
  data: Array<AgentProfileView & { updated_at: string }>;
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * The list filters of GET /internal/merchants/:merchantId/orders (`direction` too) and
 * GET /internal/agents/:agentId/orders (`scope` too), as query parameters.
 */
export interface OrderListQuery {
  status?: PaymentOrderStatus;
  created_from?: string;
  created_to?: string;
  limit?: string;
  cursor?: string;
}

export interface MerchantOrderListQuery extends OrderListQuery {
  direction?: 'incoming' | 'outgoing';
}

export interface AgentOrderListQuery extends OrderListQuery {
  /** `assigned` (default): the agent's orders; `available`: unassigned payouts it serves. */
  scope?: 'assigned' | 'available';
}

/** A page of a list, newest first. */
export interface OrderListPage<T extends Omit<PaymentOrderView, 'callback_url' | 'redirect_url' | 'return_url' | 'metadata'> = PaymentOrderView> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export type AgentOrderListPage = OrderListPage<AgentOrderView>;

/** GET /internal/merchants/:merchantId/orders/:orderId/receipts (outgoing orders only). */
export interface ReceiptsView {
  data: ReceiptView[];
}

/**
 * POST /internal/agents/:agentId/orders/:merchantId/:orderId/receipts — the raw file is the
 * body (application/octet-stream), its name in `x-file-name`. Answers the stored receipt.
 */
export interface StoredReceiptView {
  receipt_id: string;
  merchant_id: string;
  order_id: string;
  agent_id: string;
  file_name: string;
  content_type: 'application/pdf' | 'image/png' | 'image/jpeg';
  size_bytes: number;
  sha256: string;
  uploaded_at: string;
}

/** GET /internal/payer-pages/:token — the pay-in behind a payer-page token and its agent's details. */
export interface PayerPageData {
  /** Whose order it is: the gateway reads the merchant's default return URL with it. */
  merchant_id: string;
  order: PaymentOrderView;
  agent: { display_name: string; payment_details: string } | null;
}

/** POST /internal/test/clock (TEST_CLOCK_ENABLED only): moves the clock and sweeps expiries. */
export interface AdvanceClockRequest {
  advance_seconds: number;
}

export interface AdvanceClockResult {
  now: string;
  expired: number;
}

const segment = encodeURIComponent;

/** The paths of the API, so callers and the service agree on them. */
export const PAYMENTS_INTERNAL_PATHS = {
  merchantOrder: (merchantId: string, orderId: string) => `/internal/merchants/${segment(merchantId)}/orders/${segment(orderId)}`,
  merchantOrders: (merchantId: string) => `/internal/merchants/${segment(merchantId)}/orders`,
  merchantOrderReceipts: (merchantId: string, orderId: string) => `/internal/merchants/${segment(merchantId)}/orders/${segment(orderId)}/receipts`,
  merchantMethods: (merchantId: string) => `/internal/merchants/${segment(merchantId)}/methods`,
  backofficeOrder: (merchantId: string, orderId: string) => `/internal/orders/${segment(merchantId)}/${segment(orderId)}`,
  /** GET `?at=`: the order as it stood at an instant, from its stream. */
  backofficeOrderAsOf: (merchantId: string, orderId: string) => `/internal/orders/${segment(merchantId)}/${segment(orderId)}/as-of`,
  agent: (agentId: string) => `/internal/agents/${segment(agentId)}`,
  /** GET `?active=&limit=&cursor=`: every agent's profile, newest first. */
  agents: '/internal/agents',
  agentOrders: (agentId: string) => `/internal/agents/${segment(agentId)}/orders`,
  agentReceiptUpload: (agentId: string, merchantId: string, orderId: string) =>
    `/internal/agents/${segment(agentId)}/orders/${segment(merchantId)}/${segment(orderId)}/receipts`,
  receiptContent: (receiptId: string) => `/internal/receipts/${segment(receiptId)}/content`,
  payerPage: (token: string) => `/internal/payer-pages/${segment(token)}`,
  agentOrder: (agentId: string, merchantId: string, orderId: string) =>
    `/internal/agents/${segment(agentId)}/orders/${segment(merchantId)}/${segment(orderId)}`,
  payoutRecipientAccounts: (merchantId: string) => `/internal/merchants/${segment(merchantId)}/payout-recipient-accounts`,
  accountNumberReveals: (agentId: string, merchantId: string, orderId: string) =>
    `/internal/agents/${segment(agentId)}/orders/${segment(merchantId)}/${segment(orderId)}/account-number-reveals`,
  accountNumberRevealLog: () => '/internal/account-number-reveals',
} as const;

/** POST payoutRecipientAccounts: the full number goes in, encrypted at rest; only the reference comes back. */
export interface StoreRecipientAccountRequest {
  account_number: string;
}

export interface StoredRecipientAccount {
  reference: string;
  last4: string;
}

/** POST accountNumberReveals: the full number of a payout assigned to this agent; the reveal is recorded. */
export interface RevealedAccountNumber {
  account_number: string;
  revealed_at: string;
}

/** Who saw which payout's full recipient account, and when (GET accountNumberRevealLog). */
export interface AccountNumberRevealView {
  reveal_id: string;
  agent_id: string;
  merchant_id: string;
  order_id: string;
  revealed_at: string;
}
