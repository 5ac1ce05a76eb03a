import { paymentOrderDecider, type PaymentOrder, type PaymentOrderEvent } from '@mp/payments-domain';
import { deciderFolder, type AppendedEvents, type RebuildableProjection } from '@mp/shared-command-handling';
import type { EntityManager } from 'typeorm';
import { paymentOrderEvents } from '../commands/payment-order.stream';
import { saveOrderProjection } from '../persistence/payment-order.projection';

const PAYMENT_ORDER_STREAMS = 'payment-order:%';

/**
 * The order projection, rebuilt through the projector the command path runs after each append
 * (saveOrderProjection). Not derivable from payments' events: `list_position` (the order rows
 * were first written in, which lists page by) and the dispute overlay `open_dispute` /
 * `dispute_version`, set from the disputes context's messages, which payments keeps no events
 * of. The switch keeps their live values.
 */
export const PAYMENT_ORDERS_PROJECTION: RebuildableProjection = {
  service: 'payments',
  name: 'orders',
  description: 'payment_orders: one row per pay-in and payout order',
  tables: [{ name: 'payment_orders', notDerived: ['list_position', 'open_dispute', 'dispute_version'] }],
  streams: PAYMENT_ORDER_STREAMS,
  folder: () =>
    deciderFolder({
      decider: () => paymentOrderDecider,
      codec: paymentOrderEvents,
      project: async (manager, appended) => {
        if (appended.state.status !== 'NotCreated') await saveOrderProjection(manager, appended.state, appended.version);
      },
    }),
};

/**
 * A read model added after the fact and filled from history by the rebuild: each merchant's
 * succeeded pay-ins per UTC day and currency (the day the order succeeded). Only the rebuild
 * writes it (`npm run rebuild -- payments daily-payin-totals --switch`); it is as fresh as the
 * last run (docs/operations/projection-rebuild.md).
 */
export async function projectDailyPayInTotals(manager: EntityManager, appended: AppendedEvents<PaymentOrder, PaymentOrderEvent>): Promise<void> {
  const { stateBefore, state } = appended;
  if (state.status !== 'SUCCEEDED' || stateBefore.status === 'SUCCEEDED' || state.direction !== 'incoming') return;
  await manager.query(
    `INSERT INTO daily_payin_totals (merchant_id, day, currency, orders, amount_minor, fee_minor)
     VALUES ($1, ($2::timestamptz AT TIME ZONE 'UTC')::date, $3, 1, $4::numeric, $5::numeric)
     ON CONFLICT (merchant_id, day, currency) DO UPDATE SET
       orders = daily_payin_totals.orders + 1,
       amount_minor = daily_payin_totals.amount_minor + EXCLUDED.amount_minor,
       fee_minor = daily_payin_totals.fee_minor + EXCLUDED.fee_minor`,
    [state.merchantId, state.updatedAt, state.currency, state.amountMinor.toString(), state.feeMinor.toString()],
  );
}

export const DAILY_PAYIN_TOTALS_PROJECTION: RebuildableProjection = {
  service: 'payments',
  name: 'daily-payin-totals',
  description: 'daily_payin_totals: succeeded pay-ins per merchant, UTC day and currency',
  tables: [{ name: 'daily_payin_totals' }],
  streams: PAYMENT_ORDER_STREAMS,
  folder: () => deciderFolder({ decider: () => paymentOrderDecider, codec: paymentOrderEvents, project: projectDailyPayInTotals }),
};

export const PAYMENTS_PROJECTIONS: readonly RebuildableProjection[] = [PAYMENT_ORDERS_PROJECTION, DAILY_PAYIN_TOTALS_PROJECTION];
