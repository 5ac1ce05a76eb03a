import type { AgentOrderView, PaymentOrderView, ReceiptView, StoredMethodEntry } from '@mp/contracts-payments';
import type { DisputeView } from '@mp/contracts-disputes';
import type { OperatorApprovalView } from '@mp/contracts-ledger';
import type { BackofficeWithdrawalView, WithdrawalView } from '@mp/contracts-withdrawals';

/**
 * The shapes the console reads. Where the platform has the type already (its contracts), the
 * console imports it as a type only (erased from the bundle): those keep amounts as decimal
 * strings, which is what lib/money's parseJsonKeepingMoney gives the console too.
 */
export type Order = PaymentOrderView;
export type AgentOrder = AgentOrderView;
export type Receipt = ReceiptView;
export type Dispute = DisputeView;
export type Withdrawal = WithdrawalView;
export type StuckWithdrawal = BackofficeWithdrawalView;
export type MethodEntry = StoredMethodEntry;
export type Approval = OperatorApprovalView;

/** A back-office read as of an instant (docs/operations/as-of-reads.md): the state, and every event of the stream. */
export interface StateAsOf<State> {
  as_of: string;
  version: number;
  recorded_at: string | null;
  state: State | null;
  events: Array<{ version: number; type: string; recorded_at: string }>;
}

export type Role = 'merchant' | 'agent' | 'operator';

export interface Session {
  role: Role;
  subject_id: string;
  merchant_id: string | null;
  display_name: string;
  csrf_token: string;
  expires_at: string;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
  next_cursor: string | null;
}

export type Direction = 'incoming' | 'outgoing';
export const ORDER_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'] as const;

export interface Balances {
  settlement: { currency: string; available: string; frozen: string }[];
  deposit: { currency: string; available: string }[];
}

export interface Delivery {
  delivery_id: string;
  event_id: string;
  event_type: string;
  order_id: string | null;
  url: string;
  status: string;
  attempt_count: number;
  last_attempt_at: string | null;
  last_response_code: number | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface DisabledEndpoint {
  url: string;
  disabled_at: string;
  cause: string;
  reason: string;
  parked_deliveries: number;
}

export interface MerchantProfile {
  merchant_id: string;
  name: string;
  status: string;
  default_callback_url: string | null;
  default_return_url?: string | null;
  created_at: string;
  default_callback_url_disabled?: boolean | null;
}

export interface RotatedSecret {
  merchant_id: string;
  api_secret?: string;
  webhook_secret?: string;
  previous_secret_valid_until: string;
}

export interface ConsoleKey {
  key_id: string;
  /** In the issue answer only. */
  console_key?: string;
  merchant_id: string;
  created_at: string;
  expires_at: string;
  revoked_at?: string | null;
  state?: 'active' | 'expired' | 'revoked';
}

/** A dispute in the operators' queue: the merchant's dispute object and whose it is. */
export type QueuedDispute = DisputeView & { merchant_id: string };

export interface AgentProfile {
  name?: string;
  display_name: string;
  payment_details: string;
  serves: { method: string; country: string; currency: string }[];
  active?: boolean;
}

export interface SystemHealth {
  services: { name: string; ready: boolean; detail: string }[];
  checked_at: string;
}
