import {
  PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES,
  payoutHoldId,
  type PaymentOrderExternalEventData,
} from '@mp/contracts-payments';
import type { LedgerCommand } from '@mp/ledger-domain';
import { PoisonMessageError, type MessageEnvelope } from '@mp/shared-messaging';
import { isKnownCurrency } from '@mp/shared-util-money';

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

/** The fields of an external payment-order event the ledger reads. */
type OrderMoneyFields = Pick<PaymentOrderExternalEventData, 'merchantId' | 'orderId' | 'direction' | 'amountMinor' | 'feeMinor' | 'currency'>;

const POSITIVE_INTEGER = /^[1-9][0-9]*$/;
const NON_NEGATIVE_INTEGER = /^(0|[1-9][0-9]*)$/;

/**
 * What an external payment-order event (`payments.order.events`, contracts' external-events)
 * means to the ledger:
 * - an incoming order succeeded: settlement is credited with amount − fee (once per order);
 * - an outgoing order succeeded: its hold is posted (the amount leaves, the fee is earned);
 * - an outgoing order failed, was cancelled or expired: its hold is voided (money returns);
 * - anything else (creation, agent assignment, an incoming order's failure): no money moves.
 * Returns null for those. A malformed event that matters is poison: retrying cannot fix it.
 */
export function ledgerCommandFor(envelope: MessageEnvelope, now: Date): LedgerCommandFor | null {
  if (!TERMINAL_TYPES.has(envelope.type)) return null;
  if (envelope.schemaVersion !== PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION) {
    throw new PoisonMessageError(`unsupported schema version ${envelope.schemaVersion} of ${envelope.type}`);
  }
  const data = readEventData(envelope);
  const metadata = { now };
  const { merchantId, orderId, currency } = data;
  if (data.direction === 'incoming') {
    if (envelope.type !== PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded) return null;
    const command: LedgerCommand = {
      type: 'CreditPayIn',
      data: { orderId, amountMinor: BigInt(data.amountMinor), feeMinor: BigInt(data.feeMinor), reason: 'payin_succeeded' },
      metadata,
    };
    return { merchantId, currency, command };
  }
  const holdId = payoutHoldId(merchantId, orderId);
  const command: LedgerCommand = envelope.type === PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded ? { type: 'PostHold', data: { holdId }, metadata } : { type: 'VoidHold', data: { holdId }, metadata };
  return { merchantId, currency, command };
}

/** The payout hold a payout's creation event vouches for; null for any other event. */
export function payoutHoldAttachedBy(envelope: MessageEnvelope): { merchantId: string; currency: string; holdId: string } | null {
  if (envelope.type !== PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.created) return null;
  const data = envelope.data as { merchantId?: unknown; orderId?: unknown; currency?: unknown; direction?: unknown } | null;
  if (data?.direction === 'incoming') return null;
  if (typeof data?.merchantId !== 'string' || typeof data.orderId !== 'string' || typeof data.currency !== 'string') {
    throw new PoisonMessageError(`malformed ${envelope.type} ${envelope.id}: merchantId, orderId and currency are required`);
  }
  return { merchantId: data.merchantId, currency: data.currency, holdId: payoutHoldId(data.merchantId, data.orderId) };
}

function readEventData(envelope: MessageEnvelope): OrderMoneyFields {
  const data = envelope.data as Partial<Record<keyof OrderMoneyFields, unknown>> | null;
  const problems: string[] = [];
  for (const field of ['merchantId', 'orderId', 'currency'] as const) {
    if (typeof data?.[field] !== 'string' || data[field] === '') problems.push(field);
  }
  if (typeof data?.currency === 'string' && !isKnownCurrency(data.currency)) problems.push('currency');
  if (data?.direction !== 'incoming' && data?.direction !== 'outgoing') problems.push('direction');
  const amount = data?.amountMinor;
  const fee = data?.feeMinor;
  if (typeof amount !== 'string' || !POSITIVE_INTEGER.test(amount)) problems.push('amountMinor');
  if (typeof fee !== 'string' || !NON_NEGATIVE_INTEGER.test(fee)) problems.push('feeMinor');
  else if (typeof amount === 'string' && POSITIVE_INTEGER.test(amount) && BigInt(fee) > BigInt(amount)) problems.push('feeMinor');
  if (problems.length > 0) throw new PoisonMessageError(`malformed ${envelope.type} ${envelope.id}: ${[...new Set(problems)].join(', ')}`);
  return data as OrderMoneyFields;
}
