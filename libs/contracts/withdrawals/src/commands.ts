import type { ErrorDescription } from '@mp/shared-util-errors';
import type { WithdrawalView } from './withdrawal-view';

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
}

/** An operator resolves a stuck withdrawal; it goes through the same decider as the sender. */
export interface ResolveWithdrawalData {
  merchantId: string;
  orderId: string;
  operatorId: string;
  outcome: 'completed' | 'failed';
  reason: string;
  /** Required when `outcome` is `completed`: the hash the operator found on the network. */
  transactionHash?: string;
}

export const WITHDRAWAL_COMMAND_TYPES = {
  requestWithdrawal: 'RequestWithdrawal',
  resolveWithdrawal: 'ResolveWithdrawal',
} as const;

export type WithdrawalCommandType = (typeof WITHDRAWAL_COMMAND_TYPES)[keyof typeof WITHDRAWAL_COMMAND_TYPES];

export interface WithdrawalCommandDataByType {
  RequestWithdrawal: RequestWithdrawalData;
  ResolveWithdrawal: ResolveWithdrawalData;
}

export const WITHDRAWAL_COMMAND_SCHEMA_VERSION = 1;

/** The outcome of a withdrawal command (same `CommandReply` envelope type as payments' replies). */
export type WithdrawalCommandReplyData = { outcome: 'accepted'; withdrawal: WithdrawalView } | { outcome: 'rejected'; error: ErrorDescription };
