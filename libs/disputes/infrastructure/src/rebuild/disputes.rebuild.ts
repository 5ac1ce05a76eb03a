import { disputeDecider } from '@mp/disputes-domain';
import { deciderFolder, qualifiedTable, type RebuildableProjection } from '@mp/shared-command-handling';
import { AWAITS_PAYMENTS, disputeEvents } from '../commands/dispute.stream';
import { saveDisputeProjection } from '../persistence/dispute.projection';

/**
 * The disputes projection, through the projector of the command path (saveDisputeProjection)
 * and its rule: an open or reopen is projected at once, a review's outcome only once payments
 * has applied it to the order (recordOutcomeApplied). Whether it has is not in the disputes
 * events (payments' acknowledgement arrives as a message): the rebuild reads it from the live
 * row's `outcome_published_version`, which it keeps, as it keeps `list_position` (insertion
 * order). Not rebuilt: `dispute_orders` (payments' order events as disputes received them, not
 * events of this store) and `dispute_receipts` (uploaded files).
 */
export const DISPUTES_PROJECTION: RebuildableProjection = {
  service: 'disputes',
  name: 'disputes',
  description: 'disputes: one row per disputed order',
  tables: [{ name: 'disputes', notDerived: ['list_position', 'outcome_published_version'] }],
  streams: 'dispute:%',
  folder: ({ liveSchema }) =>
    deciderFolder({
      decider: () => disputeDecider,
      codec: disputeEvents,
      project: async (manager, appended) => {
        let state = appended.stateBefore;
        for (const [index, event] of appended.events.entries()) {
          state = disputeDecider.evolve(state, event);
          const version = appended.versionBefore + index + 1;
          if (state.status === 'NotOpened') continue;
          if (AWAITS_PAYMENTS.has(event.type)) {
            const [acknowledged]: unknown[] = await manager.query(
              `SELECT 1 FROM ${qualifiedTable(liveSchema, 'disputes')} WHERE dispute_id = $1 AND outcome_published_version >= $2`,
              [state.disputeId, version],
            );
            if (!acknowledged) continue;
          }
          await saveDisputeProjection(manager, state, version);
        }
      },
    }),
};

export const DISPUTES_PROJECTIONS: readonly RebuildableProjection[] = [DISPUTES_PROJECTION];
