import type { ErrorDescription } from '@mp/shared-util-errors';
import type { ReconciliationView, WithdrawalView } from './withdrawal-view';

/**
 * Commands to the withdrawals service on `withdrawals.commands`, answered on the command's
 * `replyTo` topic (the gateway's replies topic) with a `CommandReply` whose causationId is
 * the command's id. Amounts are integer minor units of the balance asset as decimal strings.
 */
export interface RequestWithdrawalData {
  merchantId: string;
  orderId: string;
  amountMinor: string;
  /** The asset code, e.g. `USDT-TRC20`. */
  currency: string;
  address: string;
  /** The merchant's own reference data, checked by the gateway; absent: none (`{}`). Never read to decide anything. */
  metadata?: Record<string, string>;
}

/**
 * An operator resolves a stuck withdrawal; it goes through the same decider as the sender.
 * `failed` only while the withdrawal is queued (nothing can have been sent).
 */
export interface ResolveWithdrawalData {
  merchantId: string;
  orderId: string;
  operatorId: string;
  outcome: 'completed' | 'failed';
  reason: string;
  /** Required when `outcome` is `completed`: the hash the operator found on the network. */
  transactionHash?: string;
}

/**
 * An operator reconciles a withdrawal stuck in "sending": the withdrawals service asks the
 * network adapter about the withdrawal's idempotency key, and the answer decides COMPLETED or
 * FAILED (refused while the network has not decided).
 */
export interface ReconcileWithdrawalData {
  merchantId: string;
  orderId: string;
  operatorId: string;
}

export const WITHDRAWAL_COMMAND_TYPES = {
  requestWithdrawal: 'RequestWithdrawal',
  resolveWithdrawal: 'ResolveWithdrawal',
  reconcileWithdrawal: 'ReconcileWithdrawal',
} as const;

export type WithdrawalCommandType = (typeof WITHDRAWAL_COMMAND_TYPES)[keyof typeof WITHDRAWAL_COMMAND_TYPES];

export interface WithdrawalCommandDataByType {
  RequestWithdrawal: RequestWithdrawalData;
  ResolveWithdrawal: ResolveWithdrawalData;
  ReconcileWithdrawal: ReconcileWithdrawalData;
}

export const WITHDRAWAL_COMMAND_SCHEMA_VERSION = 1;

/**
 * The outcome of a withdrawal command (same `CommandReply` envelope type as payments' replies).
 * A reconciliation's reply also carries its evidence.
 */
export type WithdrawalCommandReplyData =
  { outcome: 'accepted'; withdrawal: WithdrawalView; reconciliation?: ReconciliationView | null } | { outcome: 'rejected'; error: ErrorDescription };
