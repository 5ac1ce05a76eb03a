import type { PaymentOrder, PaymentOrderEvent } from '@mp/payments-domain';
import type { AppendedEvents } from '@mp/shared-command-handling';
import { executeOrDefer } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';

/**
 * Each merchant's succeeded pay-ins per UTC day (the day the order succeeded) and currency.
 * The command path runs it after every append of an order's events, and the projection rebuild
 * folds history through the same function (rebuild/payments.rebuild.ts), so the live rows and a
 * backfill agree. Only the append that makes a pay-in SUCCEEDED counts it, once. Part of the
 * command's one write statement when there is one (executeOrDefer).
 */
export async function projectDailyPayInTotals(manager: EntityManager, appended: AppendedEvents<PaymentOrder, PaymentOrderEvent>): Promise<void> {
  const { stateBefore, state } = appended;
  if (state.status !== 'SUCCEEDED' || stateBefore.status === 'SUCCEEDED' || state.direction !== 'incoming') return;
  await executeOrDefer(manager, {
    sql: `INSERT INTO daily_payin_totals (merchant_id, day, currency, orders, amount_minor, fee_minor)
     VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3, 1, $4::numeric, $5::numeric)
     ON CONFLICT (merchant_id, day, currency) DO UPDATE SET
       orders = daily_payin_totals.orders + 1,
       amount_minor = daily_payin_totals.amount_minor + EXCLUDED.amount_minor,
       fee_minor = daily_payin_totals.fee_minor + EXCLUDED.fee_minor`,
    params: [state.merchantId, state.updatedAt, state.currency, state.amountMinor.toString(), state.feeMinor.toString()],
  });
}
