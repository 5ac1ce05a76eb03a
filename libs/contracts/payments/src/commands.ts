import { createHash } from 'node:crypto';
import type { ErrorDescription } from '@mp/shared-util-errors';
import type { AgentOrderView, PaymentOrderView } from './order-view';

/**
 * Commands to the payments service on `payments.commands`, all answered on the command's
 * `replyTo` topic. Amounts are integer minor units as decimal strings (bigint does not survive
 * JSON). Writes always travel this way; reads go to the payments internal HTTP API.
 */
interface CreatePaymentData {
  merchantId: string;
  orderId: string;
  amountMinor: string;
  currency: string;
  country: string;
  callbackUrl: string;
  /** The merchant's own reference data, checked by the gateway; absent: none (`{}`). Never read to decide anything. */
  metadata?: Record<string, string>;
}

/**
 * The payer link (`redirect_url`) is the payer's credential, so it never travels on Kafka in
 * the clear. A command whose accepted reply should carry it names the asking gateway process's
 * public key (`ProcessSealer` in util-secret-box, made at start, in memory only); payments
 * seals the link for that process (`sealedPayerLink` in the reply) and the gateway opens it,
 * instead of reading the order over HTTP after every create. Absent: no link in the reply.
 */
export interface PayerLinkRequest {
  payerLinkKey?: string;
}

export interface CreateIncomingPaymentData extends CreatePaymentData, PayerLinkRequest {
  /** One of the merchant's incoming methods for the country and currency; absent: the default (see the decider). */
  method?: string;
  /** Where the payer page links back to once the order is final; absent: the merchant's default, if any. */
  returnUrl?: string;
}

export interface CreateOutgoingPaymentData extends CreatePaymentData {
  method: string;
  /**
   * The recipient account, stored encrypted first through the payments internal API
   * (`POST /internal/merchants/{merchantId}/payout-recipient-accounts`); the full number never
   * travels on Kafka.
   */
  recipientAccountRef: string;
}

/** Merchant cancels (endpoint 6): both directions. */
export interface CancelPaymentOrderData extends PayerLinkRequest {
  merchantId: string;
  orderId: string;
}

/**
 * The payer pressed "Show payment details" (a form post; viewing the page sends nothing): an
 * agent is assigned if none is yet. Payer-page commands carry the token's hash, never the token:
 * whoever reads the topic cannot use the page.
 */
export interface OpenPayerPageData {
  payerPageTokenHash: string;
}

/** The payer pressed "I have paid". */
export interface MarkPaidByPayerData {
  payerPageTokenHash: string;
}

/** How a payer-page token is known everywhere except in the payer's link: SHA-256, hex. */
export function payerPageTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Agent actions; an agent only ever acts on orders assigned to it. */
export interface AgentOrderActionData {
  agentId: string;
  merchantId: string;
  orderId: string;
}

export interface AgentDeclineOrderData extends AgentOrderActionData {
  reason: string;
}

/** The receipt file is stored first (payments internal API); the command carries its id. */
export interface AgentCompletePayoutData extends AgentOrderActionData {
  receiptId: string;
}

export const PAYMENT_COMMAND_TYPES = {
  createIncomingPayment: 'CreateIncomingPayment',
  createOutgoingPayment: 'CreateOutgoingPayment',
  cancelPaymentOrder: 'CancelPaymentOrder',
  openPayerPage: 'OpenPayerPage',
  markPaidByPayer: 'MarkPaidByPayer',
  agentTakeOrder: 'AgentTakeOrder',
  agentConfirmPayIn: 'AgentConfirmPayIn',
  agentCompletePayout: 'AgentCompletePayout',
  agentDeclineOrder: 'AgentDeclineOrder',
} as const;

export type PaymentCommandType = (typeof PAYMENT_COMMAND_TYPES)[keyof typeof PAYMENT_COMMAND_TYPES];

/** The payload of each command type. */
export interface PaymentCommandDataByType {
  CreateIncomingPayment: CreateIncomingPaymentData;
  CreateOutgoingPayment: CreateOutgoingPaymentData;
  CancelPaymentOrder: CancelPaymentOrderData;
  OpenPayerPage: OpenPayerPageData;
  MarkPaidByPayer: MarkPaidByPayerData;
  AgentTakeOrder: AgentOrderActionData;
  AgentConfirmPayIn: AgentOrderActionData;
  AgentCompletePayout: AgentCompletePayoutData;
  AgentDeclineOrder: AgentDeclineOrderData;
}

export const PAYMENT_COMMAND_SCHEMA_VERSION = 1;

/** The outcome of a command, sent to the command's `replyTo` topic with `causationId` = command id. */
export type CommandReplyData =
  | {
      outcome: 'accepted';
      order: PaymentOrderView;
      /** A pay-in's `redirect_url`, sealed for the process named by the command's `payerLinkKey`, bound to `payerLinkContext`. */
      sealedPayerLink?: string;
      /**
       * `true` when a create found its order already there (same order_id, amount, currency...)
       * and changed nothing: the answer replays the existing order. Absent when the command
       * created the order, on every other command, and in replies from payments releases
       * before the flag existed (an optional member: no new schema version, old replies read as
       * "not a replay", the safe side for a header that only informs).
       */
      replayed?: true;
      /**
       * An agent's command (take, confirm, complete, decline): the order as the agent sees it
       * after the command, so the gateway answers the agent without reading the order back. An
       * optional member, like `replayed`: a reply from a payments release before it has none,
       * and the gateway then reads the order.
       */
      agentOrder?: AgentOrderView;
    }
  | { outcome: 'rejected'; error: ErrorDescription };

export const COMMAND_REPLY_TYPE = 'CommandReply';

/** What a sealed payer link is bound to: it opens only in the reply about this order. */
export function payerLinkContext(merchantId: string, orderId: string): string {
  return `payer-link:${merchantId}/${orderId}`;
}
