import { ledgerDecider } from '@mp/ledger-domain';
import { deciderFolder, type RebuildableProjection } from '@mp/shared-command-handling';
import { ledgerEvents } from '../commands/ledger.stream';
import { lockLedger, projectLedgerEvents } from '../persistence/ledger.projection';

/** A ledger stream's merchant and currency (`ledger:<merchant>:<currency>`; merchant ids may hold colons, currencies do not). */
export function ledgerOfStream(streamId: string): { merchantId: string; currency: string } {
  const body = streamId.slice('ledger:'.length);
  const split = body.lastIndexOf(':');
  return { merchantId: body.slice(0, split), currency: body.slice(split + 1) };
}

/**
 * Every table the ledger's command path projects after an append (projectLedgerEvents), in the
 * order its writers take them: the balances row first (locked by every command), then the
 * entries. Not derivable from the events: the balances' `updated_at` (when the row was last
 * written), the postings' `position` (insertion order, the entries pages' cursor) and the
 * holds' `attached_at` / `last_requested_at` (the orphan-hold sweeper's bookkeeping, written by
 * HTTP requests and not by events). The operator approvals (ledger_operator_approvals) are
 * state of their own, with no events behind them, and are not a projection.
 */
export const LEDGER_PROJECTION: RebuildableProjection = {
  service: 'ledger',
  name: 'ledger',
  description: 'ledger balances and entries: balances, postings, credited orders, holds, conversions, deposit adjustments',
  tables: [
    { name: 'ledger_balances', notDerived: ['updated_at'] },
    { name: 'ledger_postings', notDerived: ['position'] },
    { name: 'ledger_credited_orders' },
    { name: 'ledger_holds', notDerived: ['attached_at', 'last_requested_at'] },
    { name: 'ledger_conversion_legs' },
    { name: 'ledger_conversions' },
    { name: 'ledger_deposit_adjustments' },
  ],
  streams: 'ledger:%',
  folder: () =>
    deciderFolder({
      decider: (streamId) => {
        const { merchantId, currency } = ledgerOfStream(streamId);
        return ledgerDecider(merchantId, currency);
      },
      codec: ledgerEvents,
      // The incremental projector moves an existing balances row, which the command path creates when it takes the lock.
      prepare: async (manager, streamId) => {
        const { merchantId, currency } = ledgerOfStream(streamId);
        await lockLedger(manager, merchantId, currency);
      },
      project: projectLedgerEvents,
    }),
};

export const LEDGER_PROJECTIONS: readonly RebuildableProjection[] = [LEDGER_PROJECTION];
