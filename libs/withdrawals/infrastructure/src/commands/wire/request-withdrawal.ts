// Wire command RequestWithdrawal → domain command RequestWithdrawal (withdrawalDecider).
import { WALLET_ADDRESS_MAX_LENGTH, type RequestWithdrawalData } from '@mp/contracts-withdrawals';
import { FieldRule, IsMetadata, IsMinorUnits, MatchesPattern } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { WithdrawalCommandPayload, type WithdrawalWireCommand } from './withdrawal-wire-command';

export class RequestWithdrawalPayload extends WithdrawalCommandPayload implements RequestWithdrawalData {
  @IsMinorUnits('positive')
  amountMinor!: string;

  @MatchesPattern(/^[A-Z0-9-]{2,20}$/, 'must be an asset code, e.g. USDT-TRC20')
  currency!: string;

  /** Any text: whether it is an address of the asset's network is the decider's INVALID_ADDRESS. */
  @FieldRule('isAddressText', (value) =>
    typeof value === 'string' && value.length <= WALLET_ADDRESS_MAX_LENGTH ? null : `must be a string of at most ${WALLET_ADDRESS_MAX_LENGTH} characters`,
  )
  address!: string;

  @IsOptional()
  @IsMetadata()
  metadata?: Record<string, string>;
}

/** A merchant's withdrawal: the decider checks it against the assets withdrawals serves. */
export const requestWithdrawal: WithdrawalWireCommand<'RequestWithdrawal'> = {
  type: 'RequestWithdrawal',
  payload: RequestWithdrawalPayload,
  async resolve({ now, assets }, data) {
    return {
      merchantId: data.merchantId,
      orderId: data.orderId,
      command: { type: 'RequestWithdrawal', data: { ...data, amountMinor: BigInt(data.amountMinor) }, metadata: { now, assets } },
    };
  },
};
