import {
  PAYMENT_ORDER_EXTERNAL_EVENT_CONTRACT,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES,
  payoutHoldId,
  type PaymentOrderExternalEventData,
} from '@mp/contracts-payments';
import type { LedgerCommand } from '@mp/ledger-domain';
import { readEventPayload } from '@mp/shared-command-handling';
import type { MessageEnvelope } from '@mp/shared-messaging';

export interface LedgerCommandFor {
  merchantId: string;
  currency: string;
  command: LedgerCommand;
}

const TERMINAL_TYPES: ReadonlySet<string> = new Set([
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.failed,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.cancelled,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.expired,
]);

/**
 * What an external payment-order event (`payments.order.events`, contracts' external-events)
 * means to the ledger:
 * - an incoming order succeeded: settlement is credited with amount − fee (once per order);
 * - an outgoing order succeeded: its hold is posted (the amount leaves, the fee is earned);
 * - an outgoing order failed, was cancelled or expired: its hold is voided (money returns);
 * - anything else (creation, agent assignment, an incoming order's failure): no money moves.
 * Returns null for those. An event that matters is checked against its contract
 * (`readEventPayload`): a malformed one is poison, retrying cannot fix it.
 */
export function ledgerCommandFor(envelope: MessageEnvelope, now: Date): LedgerCommandFor | null {
  if (!TERMINAL_TYPES.has(envelope.type)) return null;
  const data = readEventPayload<PaymentOrderExternalEventData>(envelope, PAYMENT_ORDER_EXTERNAL_EVENT_CONTRACT);
  const metadata = { now };
  const { merchantId, orderId, currency } = data;
  if (data.direction === 'incoming') {
    if (envelope.type !== PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded) return null;
    const command: LedgerCommand = {
      type: 'CreditPayIn',
      // Credited once per order either way; a dispute settlement is booked under its own codes.
      data: {
        orderId,
        amountMinor: BigInt(data.amountMinor),
        feeMinor: BigInt(data.feeMinor),
        reason: data.settledByDisputeId ? 'dispute_accepted' : 'payin_succeeded',
      },
      metadata,
    };
    return { merchantId, currency, command };
  }
  const holdId = payoutHoldId(merchantId, orderId);
  const command: LedgerCommand =
    envelope.type === PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded
      ? { type: 'PostHold', data: { holdId }, metadata }
      : { type: 'VoidHold', data: { holdId }, metadata };
  return { merchantId, currency, command };
}

/**
 * The payout hold a payout's creation event vouches for; null for any other event. A pay-in's
 * creation attaches nothing, so it is passed over before the contract check, like any event that
 * moves nothing. Payments publishes pay-in creations on payments.order.progress, which the ledger
 * does not read; one may still come here from a release before that split, or a replay.
 */
export function payoutHoldAttachedBy(envelope: MessageEnvelope): { merchantId: string; currency: string; holdId: string } | null {
  if (envelope.type !== PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.created) return null;
  if ((envelope.data as { direction?: unknown } | null)?.direction === 'incoming') return null;
  const data = readEventPayload<PaymentOrderExternalEventData>(envelope, PAYMENT_ORDER_EXTERNAL_EVENT_CONTRACT);
  if (data.direction === 'incoming') return null;
  return { merchantId: data.merchantId, currency: data.currency, holdId: payoutHoldId(data.merchantId, data.orderId) };
}
