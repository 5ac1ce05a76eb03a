import {
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES,
  type PaymentOrderExternalEvent,
  type PaymentOrderExternalEventType,
  type PaymentOrderExternalView,
  type PaymentOrderSubStatus,
} from '@mp/contracts-payments';
import { formatAmountMinor } from '@mp/shared-util-money';
import type { ExistingPaymentOrder, PaymentOrderEvent } from './payment-order.decider';

/**
 * How a recipient account is shown wherever the full number must not be: merchants' state
 * objects, agents' lists, external events. Stable on purpose (merchants may display it):
 * four bullets, a space, the last four characters as the merchant sent them.
 */
export function maskAccountNumber(last4: string): string {
  return `•••• ${last4}`;
}

/** The last four characters of an account number, the only part that leaves its vault. */
export function lastFourOf(accountNumber: string): string {
  return accountNumber.slice(-4);
}

/** Internal progress of an unfinished order, as merchants see it (docs/api/states.md). */
export function subStatusOf(order: Pick<ExistingPaymentOrder, 'status' | 'agentId' | 'payerMarkedPaidAt'>): PaymentOrderSubStatus {
  if (order.status !== 'PENDING') return null;
  if (order.payerMarkedPaidAt) return 'payer_reported_paid';
  return order.agentId ? 'agent_assigned' : 'awaiting_agent';
}

const EXTERNAL_TYPE_OF: Record<PaymentOrderEvent['type'], PaymentOrderExternalEventType> = {
  IncomingPaymentCreated: PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.created,
  OutgoingPaymentCreated: PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.created,
  PaymentOrderAgentAssigned: PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.agentAssigned,
  IncomingPaymentMarkedPaid: PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.payerReportedPaid,
  PaymentOrderSucceeded: PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded,
  IncomingPaymentSettledByDispute: PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded,
  PaymentOrderFailed: PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.failed,
  PaymentOrderCancelled: PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.cancelled,
  PaymentOrderExpired: PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.expired,
};

/** The merchant-facing state object without secrets: no payer-page link, the account masked. */
export function externalViewOf(order: ExistingPaymentOrder): PaymentOrderExternalView {
  return {
    order_id: order.orderId,
    direction: order.direction,
    status: order.status,
    sub_status: subStatusOf(order),
    amount: formatAmountMinor(order.amountMinor, order.currency),
    fee: formatAmountMinor(order.feeMinor, order.currency),
    currency: order.currency,
    country: order.country,
    method: order.method,
    callback_url: order.callbackUrl,
    // Where the status read has it: after callback_url (and its redirect_url, never in events).
    ...(order.direction === 'incoming' ? { return_url: order.returnUrl } : {}),
    ...(order.recipientAccount ? { account_number_masked: maskAccountNumber(order.recipientAccount.last4) } : {}),
    failure_reason: order.failureReason,
    metadata: order.metadata,
    expires_at: order.expiresAt,
    created_at: order.createdAt,
    updated_at: order.updatedAt,
  };
}

/**
 * An internal event as other contexts see it, built field by field so nothing internal (the
 * payer-page token hash, the account reference, receipts) leaks by being spread along.
 * `orderAfter` is the order with this event applied and `version` the stream position it
 * took: receivers drop an event older than one they have already seen.
 */
export function toExternalEvent(event: PaymentOrderEvent, orderAfter: ExistingPaymentOrder, version: number): PaymentOrderExternalEvent {
  const occurredAt = event.type === 'IncomingPaymentCreated' || event.type === 'OutgoingPaymentCreated' ? event.data.createdAt : event.data.occurredAt;
  return {
    type: EXTERNAL_TYPE_OF[event.type],
    data: {
      merchantId: orderAfter.merchantId,
      orderId: orderAfter.orderId,
      direction: orderAfter.direction,
      status: orderAfter.status,
      amountMinor: orderAfter.amountMinor.toString(),
      feeMinor: orderAfter.feeMinor.toString(),
      currency: orderAfter.currency,
      agentId: orderAfter.agentId,
      version,
      occurredAt,
      ...(event.type === 'IncomingPaymentSettledByDispute' ? { settledByDisputeId: event.data.disputeId } : {}),
      order: externalViewOf(orderAfter),
    },
  };
}
