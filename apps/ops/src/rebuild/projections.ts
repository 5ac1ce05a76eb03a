import { CALLBACKS_PROJECTIONS } from '@mp/callbacks-infrastructure';
import { DISPUTES_PROJECTIONS } from '@mp/disputes-infrastructure';
import { LEDGER_PROJECTIONS } from '@mp/ledger-infrastructure';
import { PAYMENTS_PROJECTIONS } from '@mp/payments-infrastructure';
import type { RebuildableProjection } from '@mp/shared-command-handling';
import { WITHDRAWALS_PROJECTIONS } from '@mp/withdrawals-infrastructure';

/** Every projection the rebuild can make again from its service's event store. */
export const REBUILDABLE_PROJECTIONS: readonly RebuildableProjection[] = [
  ...PAYMENTS_PROJECTIONS,
  ...LEDGER_PROJECTIONS,
  ...DISPUTES_PROJECTIONS,
  ...WITHDRAWALS_PROJECTIONS,
  ...CALLBACKS_PROJECTIONS,
];

/** Read models no event store lies behind, and why: the rebuild names them instead of guessing. */
export const NOT_DERIVABLE: ReadonlyArray<{ service: string; name: string; why: string }> = [
  {
    service: 'disputes',
    name: 'orders',
    why: 'dispute_orders is what disputes received of payments’ order events over Kafka (consumer state, not events of the disputes store)',
  },
  { service: 'ledger', name: 'approvals', why: 'ledger_operator_approvals is state of its own (four-eyes requests and decisions), written without events' },
];

/** A projection by `<service> <name>` (as `npm run rebuild -- --list` prints them). */
export function findProjection(service: string, name: string): RebuildableProjection | undefined {
  return REBUILDABLE_PROJECTIONS.find((projection) => projection.service === service && projection.name === name);
}
