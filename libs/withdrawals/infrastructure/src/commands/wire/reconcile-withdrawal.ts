// Wire command ReconcileWithdrawal → domain command ReconcileWithdrawal (withdrawalDecider).
import { DomainError } from '@mp/shared-util-errors';
import { toWithdrawalStreamId, type NetworkAnswer } from '@mp/withdrawals-domain';
import { findWithdrawal } from '../../persistence/withdrawal.projection';
import type { NetworkAdapter } from '../../sending/network-adapter.port';
import { OperatorActionPayload, type WithdrawalWireCommand } from './withdrawal-wire-command';

export class ReconcileWithdrawalPayload extends OperatorActionPayload {}

/** An operator asks the network what became of a withdrawal; its answer is the evidence the decider judges. */
export const reconcileWithdrawal: WithdrawalWireCommand<'ReconcileWithdrawal'> = {
  type: 'ReconcileWithdrawal',
  payload: ReconcileWithdrawalPayload,
  async resolve({ manager, network, now }, { merchantId, orderId, operatorId }) {
    // Never ask the network about a key no withdrawal owns (the simulator would claim it as dropped).
    if (!(await findWithdrawal(manager, merchantId, orderId))) throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
    const idempotencyKey = toWithdrawalStreamId(merchantId, orderId);
    const askedAt = now;
    const answer = await askNetwork(network, idempotencyKey, merchantId);
    return {
      merchantId,
      orderId,
      command: {
        type: 'ReconcileWithdrawal',
        data: { evidence: { operatorId, idempotencyKey, askedAt: askedAt.toISOString(), answer } },
        metadata: { now: askedAt },
      },
    };
  },
};

/** The network's answer; not knowing is a retryable refusal, never a guess. */
async function askNetwork(network: NetworkAdapter, idempotencyKey: string, merchantId: string): Promise<NetworkAnswer> {
  try {
    return await network.lookup(idempotencyKey, merchantId);
  } catch (error) {
    throw new DomainError('SERVICE_UNAVAILABLE', `The network did not answer about ${idempotencyKey} (${String(error)}); reconcile again later`);
  }
}
