import { payoutHoldId } from '@mp/contracts-payments';
import {
  PAYMENT_ORDER_EVENT_SCHEMAS,
  paymentOrderDecider,
  toPaymentOrderStreamId,
  type ExistingPaymentOrder,
  type PaymentOrder,
  type PaymentOrderCommand,
  type PaymentOrderEvent,
} from '@mp/payments-domain';
import {
  aggregateStream,
  handleCommand,
  type AggregatedStream,
  type Causation,
  type CommandResult,
  type DecidedEvents,
  type HandleCommandOptions,
} from '@mp/shared-command-handling';
import { eventCodec } from '@mp/shared-decider';
import { DomainError } from '@mp/shared-util-errors';
import type { EntityManager } from 'typeorm';
import { lockHoldPlacement, placeHoldForNewObject, type LedgerHolds } from '../ledger/ledger-holds.port';
import { projectDailyPayInTotals } from '../persistence/daily-payin-totals.projection';
import { saveOrderProjection } from '../persistence/payment-order.projection';
import { publishOrderEvents } from './publish-order-events';

/**
 * Payment orders on the shared command core. Their streams are short by the decider's own
 * rules (created, an agent, the payer's report, one final event; repeats and finished orders
 * add nothing), so the state is folded from the whole stream: at most four events, whatever
 * the merchant's history. No snapshot or projection row is needed to keep the cost flat.
 */
export const paymentOrderEvents = eventCodec(PAYMENT_ORDER_EVENT_SCHEMAS);

export function loadPaymentOrder(manager: EntityManager, merchantId: string, orderId: string): Promise<AggregatedStream<PaymentOrder>> {
  return aggregateStream(manager, paymentOrderDecider, toPaymentOrderStreamId(merchantId, orderId), { codec: paymentOrderEvents });
}

export interface PaymentOrderCommandResult extends CommandResult<PaymentOrder, PaymentOrderEvent> {
  order: ExistingPaymentOrder;
}

/**
 * Runs one command on one order: decide, place the ledger hold a new payout needs, append, then
 * the projections (the order row, the daily pay-in totals) and the outbox in the same transaction. A DomainError leaves nothing written.
 */
export async function handlePaymentOrderCommand(
  ledger: LedgerHolds,
  transaction: HandleCommandOptions<PaymentOrder, PaymentOrderEvent>['transaction'],
  merchantId: string,
  orderId: string,
  command: PaymentOrderCommand,
  causation: Causation,
): Promise<PaymentOrderCommandResult> {
  const result = await handleCommand(paymentOrderDecider, toPaymentOrderStreamId(merchantId, orderId), command, {
    transaction,
    codec: paymentOrderEvents,
    envelope: { source: 'payments', subject: `merchant:${merchantId}/order:${orderId}`, causation },
    beforeAppend: (manager, decided) => placePayoutHold(ledger, manager, merchantId, orderId, decided),
    afterAppend: async (manager, appended) => {
      await saveOrderProjection(manager, existingOrder(appended.state, orderId), appended.version);
      await projectDailyPayInTotals(manager, appended);
      await publishOrderEvents(manager, appended);
    },
  });
  return { ...result, order: existingOrder(result.state, orderId) };
}

function existingOrder(order: PaymentOrder, orderId: string): ExistingPaymentOrder {
  if (order.status === 'NotCreated') throw new DomainError('ORDER_NOT_FOUND', `No order ${orderId}`);
  return order;
}

/**
 * The hold comes before the payout exists: without the funds frozen the payout must not exist
 * (docs/api). It is idempotent by hold id, so a retry after a crash finds the same hold.
 */
async function placePayoutHold(
  ledger: LedgerHolds,
  manager: EntityManager,
  merchantId: string,
  orderId: string,
  decided: DecidedEvents<PaymentOrder, PaymentOrderEvent>,
): Promise<void> {
  const created = decided.events.some((event) => event.type === 'OutgoingPaymentCreated');
  if (!created) return;
  const order = existingOrder(decided.state, orderId);
  const holdId = payoutHoldId(merchantId, orderId);
  // Until this transaction ends, the ledger's orphan-hold sweep hears "being created" for it.
  await lockHoldPlacement(manager, holdId);
  const hold = await placeHoldForNewObject(
    ledger,
    {
      hold_id: holdId,
      merchant_id: merchantId,
      currency: order.currency,
      amount_minor: order.amountMinor.toString(),
      fee_minor: order.feeMinor.toString(),
      reference: { kind: 'payment_order', id: orderId },
    },
    'payout',
  );
  if (hold.status !== 'pending') {
    // An earlier attempt with this order_id placed the hold and never created the order; the
    // ledger has since released it as orphaned. A payout without frozen funds must not exist,
    // so this order_id stays unused.
    throw new DomainError(
      'DUPLICATE_ORDER',
      `order_id ${orderId} was used by an earlier request that did not complete and whose funds were released; send the payout with a new order_id`,
      [{ field: 'order_id', issue: 'already used by an abandoned request' }],
    );
  }
}
