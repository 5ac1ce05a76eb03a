// Wire command ResolveWithdrawal → domain command CompleteWithdrawal or FailWithdrawal (withdrawalDecider), by its outcome.
import type { ResolveWithdrawalData } from '@mp/contracts-withdrawals';
import { PoisonMessageError } from '@mp/shared-messaging';
import { IsOneOf, IsPlainText, MatchesPattern } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { OperatorActionPayload, type WithdrawalWireCommand } from './withdrawal-wire-command';

export class ResolveWithdrawalPayload extends OperatorActionPayload implements ResolveWithdrawalData {
  @IsOneOf(['completed', 'failed'])
  outcome!: 'completed' | 'failed';

  @IsPlainText(1_000)
  reason!: string;

  @IsOptional()
  @MatchesPattern(/^(0x)?[0-9A-Fa-f]{64}$/, 'must be a 64-digit hexadecimal transaction hash')
  transactionHash?: string;
}

/** An operator settles a withdrawal by hand; the reason records who did. A completion without its transaction hash can never succeed. */
export const resolveWithdrawal: WithdrawalWireCommand<'ResolveWithdrawal'> = {
  type: 'ResolveWithdrawal',
  payload: ResolveWithdrawalPayload,
  async resolve({ now }, { merchantId, orderId, operatorId, outcome, transactionHash, reason: given }, envelope) {
    const reason = `${given} (resolved by operator ${operatorId})`;
    if (outcome === 'failed') return { merchantId, orderId, command: { type: 'FailWithdrawal', data: { reason, resolvedBy: 'operator' }, metadata: { now } } };
    if (transactionHash === undefined) throw new PoisonMessageError(`malformed ${envelope.type} payload: a completed resolution needs transactionHash`);
    return { merchantId, orderId, command: { type: 'CompleteWithdrawal', data: { transactionHash, resolvedBy: 'operator', reason }, metadata: { now } } };
  },
};
