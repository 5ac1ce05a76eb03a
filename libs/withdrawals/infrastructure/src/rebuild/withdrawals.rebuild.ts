import { deciderFolder, type RebuildableProjection } from '@mp/shared-command-handling';
import { withdrawalDecider } from '@mp/withdrawals-domain';
import { withdrawalEvents } from '../commands/withdrawal.stream';
import { recordLateNetworkResults } from '../persistence/late-network-results';
import { saveWithdrawalProjection } from '../persistence/withdrawal.projection';

/**
 * What the withdrawal command path projects after an append: the withdrawal's row
 * (saveWithdrawalProjection), and each late network result with its durable counter
 * (recordLateNetworkResults). Not derivable: `list_position` (insertion order), the late
 * results' serial `id` (rows are matched by their stream version instead) and the counters'
 * `updated_at`. `simulated_network_sends` is the simulated network's own record, not a
 * projection.
 */
export const WITHDRAWALS_PROJECTION: RebuildableProjection = {
  service: 'withdrawals',
  name: 'withdrawals',
  description: 'withdrawals, their late network results and the late-result counters',
  tables: [
    { name: 'withdrawals', notDerived: ['list_position'] },
    { name: 'withdrawal_late_network_results', notDerived: ['id'], key: ['merchant_id', 'order_id', 'stream_version'] },
    { name: 'withdrawal_metric_counters', notDerived: ['updated_at'] },
  ],
  streams: 'withdrawal:%',
  folder: () =>
    deciderFolder({
      decider: () => withdrawalDecider,
      codec: withdrawalEvents,
      project: async (manager, appended) => {
        if (appended.state.status === 'NotRequested') return;
        await saveWithdrawalProjection(manager, appended.state, appended.version);
        await recordLateNetworkResults(manager, appended);
      },
    }),
};

export const WITHDRAWALS_PROJECTIONS: readonly RebuildableProjection[] = [WITHDRAWALS_PROJECTION];
