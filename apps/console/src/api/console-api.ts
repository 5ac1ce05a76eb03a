import { jsonWithDecimals } from '../lib/money';
import { apiFile, apiJson, segment, setCsrfToken, type DownloadedFile } from './http';
import type {
  AgentOrder,
  AgentProfile,
  Approval,
  Balances,
  ConsoleKey,
  Delivery,
  DisabledEndpoint,
  Direction,
  Dispute,
  MerchantProfile,
  MethodEntry,
  Order,
  Page,
  QueuedDispute,
  Receipt,
  Role,
  RotatedSecret,
  Session,
  StateAsOf,
  StuckWithdrawal,
  SystemHealth,
  Withdrawal,
} from './types';

/**
 * Every call the console makes, one typed function each, over the BFF's prefixes
 * (CONSOLE-CONTRACT): /console/api/merchant/v2/… (relayed to /v2, signed as the session's
 * merchant), /console/api/agent/… (/backoffice/v1/agent), /console/api/operator/… (/backoffice/v1).
 */

// ---- Session ----
export async function getSession(): Promise<Session> {
  const session = await apiJson<Session>('GET', '/session');
  setCsrfToken(session.csrf_token);
  return session;
}

export async function login(role: Role, credential: string): Promise<Session> {
  const session = await apiJson<Session>('POST', '/login', { json: { role, credential } });
  setCsrfToken(session.csrf_token);
  return session;
}

export async function logout(): Promise<void> {
  await apiJson<void>('POST', '/logout');
  setCsrfToken(null);
}

// ---- Merchant (/v2 through the BFF) ----
/**
 * Live or test mode: the same calls, relayed as the merchant or as its sandbox merchant (the
 * BFF's /console/api/merchant/test/v2). Chosen in the shell; a reload starts live.
 */
export type MerchantMode = 'live' | 'test';
let merchantMode: MerchantMode = 'live';
export function setMerchantMode(mode: MerchantMode): void {
  merchantMode = mode;
}
const v2 = () => (merchantMode === 'test' ? '/merchant/test/v2' : '/merchant/v2');

export interface ListFilters {
  status?: string;
  /** Disputes only: the dispute of one pay-in. */
  order_id?: string;
  created_from?: string;
  created_to?: string;
  cursor?: string;
  limit?: number;
}

/** Lists take a body of filters; an absent filter is left out (null counts as absent, but "" is invalid). */
function filterBody(filters: ListFilters): Record<string, unknown> {
  return Object.fromEntries(Object.entries(filters).filter(([, value]) => value !== undefined && value !== ''));
}

export const merchantApi = {
  balances: () => apiJson<Balances>('GET', `${v2()}/merchant/balances`),
  profile: () => apiJson<MerchantProfile>('GET', `${v2()}/merchant`),
  reconciliationCsv: (date: string, currency: string): Promise<DownloadedFile> => apiFile(`${v2()}/merchant/reconciliation`, { date, currency }),
  listOrders: (direction: Direction, filters: ListFilters) => apiJson<Page<Order>>('POST', `${v2()}/payments/${direction}/list`, { json: filterBody(filters) }),
  order: (orderId: string) => apiJson<Order>('GET', `${v2()}/payments/status/${segment(orderId)}`),
  payoutReceipts: (orderId: string) => apiJson<{ data: Receipt[] }>('GET', `${v2()}/payments/${segment(orderId)}/receipts`),
  listDisputes: (filters: ListFilters) => apiJson<Page<Dispute>>('POST', `${v2()}/disputes/list`, { json: filterBody(filters) }),
  listWithdrawals: (filters: ListFilters) => apiJson<Page<Withdrawal>>('POST', `${v2()}/merchant/withdrawals/list`, { json: filterBody(filters) }),
  listDeliveries: (query: { order_id?: string; status?: string; cursor?: string; limit?: number }) =>
    apiJson<Page<Delivery>>('GET', `${v2()}/webhooks/deliveries`, { query }),
  redeliver: (deliveryId: string) => apiJson<Delivery>('POST', `${v2()}/webhooks/deliveries/${segment(deliveryId)}/redeliver`, { json: {} }),
  disabledEndpoints: () => apiJson<{ data: DisabledEndpoint[] }>('GET', `${v2()}/webhooks/endpoints`),
  enableEndpoint: (url: string) => apiJson<{ url: string; resumed_deliveries: number }>('POST', `${v2()}/webhooks/endpoints/enable`, { json: { url } }),
  sendTestWebhook: () => apiJson<{ id: string }>('POST', `${v2()}/webhooks/test`, { json: {} }),
  rotateApiSecret: () => apiJson<RotatedSecret>('POST', `${v2()}/merchant/api-secret/rotate`, { json: {} }),
  rotateWebhookSecret: () => apiJson<RotatedSecret>('POST', `${v2()}/merchant/webhook-secret/rotate`, { json: {} }),
};

/** The order's dispute, if it has one: endpoint 15 filtered by `order_id` (a pay-in has at most one). */
export async function findDisputeOfOrder(orderId: string): Promise<Dispute | null> {
  const answer = await merchantApi.listDisputes({ order_id: orderId, limit: 1 });
  return answer.data[0] ?? null;
}

// ---- Agent (/backoffice/v1/agent through the BFF) ----
function agentOrderPath(order: { merchant_id: string; order_id: string }, action = ''): string {
  return `/agent/orders/${segment(order.merchant_id)}/${segment(order.order_id)}${action ? `/${action}` : ''}`;
}

export const agentApi = {
  listOrders: (scope: 'assigned' | 'available', cursor?: string) => apiJson<Page<AgentOrder>>('GET', '/agent/orders', { query: { scope, cursor, limit: 20 } }),
  order: (merchantId: string, orderId: string) => apiJson<AgentOrder>('GET', agentOrderPath({ merchant_id: merchantId, order_id: orderId })),
  take: (order: AgentOrder) => apiJson<AgentOrder>('POST', agentOrderPath(order, 'take'), { json: {} }),
  confirm: (order: AgentOrder) => apiJson<AgentOrder>('POST', agentOrderPath(order, 'confirm'), { json: {} }),
  decline: (order: AgentOrder, reason: string) => apiJson<AgentOrder>('POST', agentOrderPath(order, 'decline'), { json: { reason } }),
  /**
   * The raw file is the body, its name in x-file-name (the back office's receipts endpoint, which
   * stores the header as it comes): a header holds ASCII only, so other characters become `_`.
   */
  uploadReceipt: (order: AgentOrder, file: File) =>
    apiJson<Receipt>('POST', agentOrderPath(order, 'receipts'), {
      raw: {
        body: file,
        contentType: file.type || 'application/octet-stream',
        headers: { 'x-file-name': file.name.replace(/[^A-Za-z0-9._ -]/g, '_').slice(0, 200) || 'receipt' },
      },
    }),
  complete: (order: AgentOrder, receiptId: string) => apiJson<AgentOrder>('POST', agentOrderPath(order, 'complete'), { json: { receipt_id: receiptId } }),
};

// ---- Operator (/backoffice/v1 through the BFF) ----
const merchantPath = (merchantId: string, rest = '') => `/operator/merchants/${segment(merchantId)}${rest}`;

export const operatorApi = {
  listMerchants: (filters: ListFilters) =>
    apiJson<Page<MerchantProfile & { mode: 'live' | 'test' }>>('GET', '/operator/merchants', {
      query: { status: filters.status, cursor: filters.cursor, limit: filters.limit },
    }),
  /** The agent list's `active` filter, as the shared list's status: `active` or `inactive`. */
  listAgents: (filters: ListFilters) =>
    apiJson<Page<AgentProfile & { agent_id: string; updated_at: string }>>('GET', '/operator/agents', {
      query: { active: filters.status === undefined ? undefined : String(filters.status === 'active'), cursor: filters.cursor, limit: filters.limit },
    }),
  disputeQueue: (filters: ListFilters) =>
    apiJson<Page<QueuedDispute>>('GET', '/operator/disputes', { query: { status: filters.status, cursor: filters.cursor, limit: filters.limit } }),
  dispute: (merchantId: string, disputeId: string) => apiJson<QueuedDispute>('GET', `/operator/disputes/${segment(merchantId)}/${segment(disputeId)}`),
  createMerchant: (name: string, defaultCallbackUrl?: string) =>
    apiJson<{ merchant_id: string; name: string; api_secret: string; webhook_secret: string }>('POST', '/operator/merchants', {
      json: defaultCallbackUrl ? { name, default_callback_url: defaultCallbackUrl } : { name },
    }),
  merchant: (merchantId: string) => apiJson<MerchantProfile & Record<string, unknown>>('GET', merchantPath(merchantId)),
  merchantBalances: (merchantId: string) => apiJson<Balances>('GET', merchantPath(merchantId, '/balances')),
  methods: (merchantId: string) => apiJson<{ data: MethodEntry[] }>('GET', merchantPath(merchantId, '/methods')),
  putMethods: (merchantId: string, entries: MethodEntry[]) =>
    apiJson<{ data: MethodEntry[] }>('PUT', merchantPath(merchantId, '/methods'), { json: { entries } }),
  suspend: (merchantId: string, reason: string) => apiJson<MerchantProfile>('POST', merchantPath(merchantId, '/suspend'), { json: { reason } }),
  reinstate: (merchantId: string, reason: string) => apiJson<MerchantProfile>('POST', merchantPath(merchantId, '/reinstate'), { json: { reason } }),
  issueTestCredentials: (merchantId: string) =>
    apiJson<{ merchant_id: string; api_secret: string; webhook_secret: string; methods_copied: number }>(
      'POST',
      merchantPath(merchantId, '/test-credentials'),
      { json: {} },
    ),
  consoleKeys: (merchantId: string) => apiJson<{ data: ConsoleKey[] }>('GET', merchantPath(merchantId, '/console-keys')),
  issueConsoleKey: (merchantId: string) => apiJson<ConsoleKey>('POST', merchantPath(merchantId, '/console-keys'), { json: {} }),
  revokeConsoleKey: (merchantId: string, keyId: string) =>
    apiJson<ConsoleKey>('POST', merchantPath(merchantId, `/console-keys/${segment(keyId)}/revoke`), { json: {} }),
  createAgent: (profile: AgentProfile) => apiJson<AgentProfile & { agent_id: string; token: string }>('POST', '/operator/agents', { json: profile }),
  updateAgent: (agentId: string, profile: AgentProfile) =>
    apiJson<AgentProfile & { agent_id: string }>('PUT', `/operator/agents/${segment(agentId)}`, { json: profile }),
  disputeReceipt: (merchantId: string, disputeId: string) => apiFile(`/operator/disputes/${segment(merchantId)}/${segment(disputeId)}/receipt`),
  reviewDispute: (merchantId: string, disputeId: string, decision: 'ACCEPTED' | 'REJECTED', reason: string) =>
    apiJson<Dispute>('POST', `/operator/disputes/${segment(merchantId)}/${segment(disputeId)}/review`, { json: reason ? { decision, reason } : { decision } }),
  order: (merchantId: string, orderId: string) => apiJson<AgentOrder>('GET', `/operator/orders/${segment(merchantId)}/${segment(orderId)}`),
  /** The order as it stood at `at` (RFC 3339), folded from its events, with all of them. */
  orderAsOf: (merchantId: string, orderId: string, at: string) =>
    apiJson<StateAsOf<AgentOrder>>('GET', `/operator/orders/${segment(merchantId)}/${segment(orderId)}/as-of`, { query: { at } }),
  /** 201 booked, or 202 with an approval request a second operator decides. */
  adjustDeposit: (merchantId: string, input: { currency: string; amount: string; reason: string; adjustment_id: string }) =>
    apiJson<Record<string, unknown>>('POST', merchantPath(merchantId, '/deposit-adjustments'), {
      jsonText: jsonWithDecimals({ currency: input.currency, reason: input.reason, adjustment_id: input.adjustment_id }, { amount: input.amount }),
    }),
  convert: (merchantId: string, input: { conversion_id: string; from_currency: string; to_currency: string; amount: string; rate: string; reason: string }) =>
    apiJson<Record<string, unknown>>('POST', merchantPath(merchantId, '/conversions'), {
      jsonText: jsonWithDecimals(
        { conversion_id: input.conversion_id, from_currency: input.from_currency, to_currency: input.to_currency, rate: input.rate, reason: input.reason },
        { amount: input.amount },
      ),
    }),
  approvals: (status = 'pending') => apiJson<{ data: Approval[] }>('GET', '/operator/approvals', { query: { status } }),
  approve: (approvalId: string) => apiJson<Approval>('POST', `/operator/approvals/${segment(approvalId)}/approve`, { json: {} }),
  reject: (approvalId: string, reason: string) => apiJson<Approval>('POST', `/operator/approvals/${segment(approvalId)}/reject`, { json: { reason } }),
  stuckWithdrawals: () => apiJson<{ data: StuckWithdrawal[] }>('GET', '/operator/withdrawals/stuck'),
  reconcileWithdrawal: (merchantId: string, orderId: string) =>
    apiJson<Record<string, unknown>>('POST', `/operator/withdrawals/${segment(merchantId)}/${segment(orderId)}/reconcile`, { json: {} }),
  resolveWithdrawal: (merchantId: string, orderId: string, body: { outcome: 'completed' | 'failed'; reason: string; transaction_hash?: string }) =>
    apiJson<Withdrawal>('POST', `/operator/withdrawals/${segment(merchantId)}/${segment(orderId)}/resolve`, { json: body }),
  systemHealth: () => apiJson<SystemHealth>('GET', '/operator/system-health'),
};
