import { paymentOrderDecider } from '@mp/payments-domain';
import { deciderFolder, type RebuildableProjection } from '@mp/shared-command-handling';
import { paymentOrderEvents } from '../commands/payment-order.stream';
import { projectDailyPayInTotals } from '../persistence/daily-payin-totals.projection';
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
 * A read model added after the fact, filled from history by the rebuild
 * (`npm run rebuild -- payments daily-payin-totals --switch`) and kept current by the command
 * path, both through projectDailyPayInTotals (docs/operations/projection-rebuild.md).
 */
export const DAILY_PAYIN_TOTALS_PROJECTION: RebuildableProjection = {
  service: 'payments',
  name: 'daily-payin-totals',
  description: 'daily_payin_totals: succeeded pay-ins per merchant, UTC day and currency',
  tables: [{ name: 'daily_payin_totals' }],
  streams: PAYMENT_ORDER_STREAMS,
  folder: () => deciderFolder({ decider: () => paymentOrderDecider, codec: paymentOrderEvents, project: projectDailyPayInTotals }),
};

export const PAYMENTS_PROJECTIONS: readonly RebuildableProjection[] = [PAYMENT_ORDERS_PROJECTION, DAILY_PAYIN_TOTALS_PROJECTION];
