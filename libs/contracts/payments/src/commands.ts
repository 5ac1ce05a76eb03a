import type { ErrorDescription } from '@mp/shared-util-errors';
import type { PaymentOrderView } from './order-view';

/** Command: create an incoming payment (spec endpoint 1), already checked for syntax by the gateway. */
export interface CreateIncomingPaymentData {
  merchantId: string;
  orderId: string;
  /** Integer minor units, as a decimal string (bigint does not survive JSON). */
  amountMinor: string;
  currency: string;
  country: string;
  callbackUrl: string;
}

export const PAYMENT_COMMAND_TYPES = {
  createIncomingPayment: 'CreateIncomingPayment',
} as const;

export type PaymentCommandType = (typeof PAYMENT_COMMAND_TYPES)[keyof typeof PAYMENT_COMMAND_TYPES];

export const PAYMENT_COMMAND_SCHEMA_VERSION = 1;

/** The outcome of a command, sent to the command's `replyTo` topic with `causationId` = command id. */
export type CommandReplyData =
  | { outcome: 'accepted'; order: PaymentOrderView }
  | { outcome: 'rejected'; error: ErrorDescription };

export const COMMAND_REPLY_TYPE = 'CommandReply';
