import type { ReconcileWithdrawalData, RequestWithdrawalData, ResolveWithdrawalData, WithdrawalCommandType } from '@mp/contracts-withdrawals';
import { IsOptional } from 'class-validator';
import { FieldRule, INTERNAL_ID_PATTERN, IsMinorUnits, IsOneOf, IsOrderId, IsPlainText, MatchesPattern, MERCHANT_ID_PATTERN } from '@mp/shared-util-validation';

/**
 * The payload of each command on `withdrawals.commands`, as request classes. A payload that
 * fails its class can never succeed, whatever the state: it is a poison message, not a business
 * rejection (the gateway validated the merchant's or operator's input before sending it). The
 * asset, the address and the minimum are business rules: the decider answers them.
 */

class WithdrawalCommandPayload {
  @MatchesPattern(MERCHANT_ID_PATTERN, 'must be a merchant id')
  merchantId!: string;

  @IsOrderId()
  orderId!: string;
}

export class RequestWithdrawalPayload extends WithdrawalCommandPayload implements RequestWithdrawalData {
  @IsMinorUnits('positive')
  amountMinor!: string;

  @MatchesPattern(/^[A-Z0-9-]{2,20}$/, 'must be an asset code, e.g. USDT-TRC20')
  currency!: string;

  /** Any text: whether it is an address of the asset's network is the decider's INVALID_ADDRESS. */
  @FieldRule('isAddressText', (value) => (typeof value === 'string' && value.length <= 128 ? null : 'must be a string of at most 128 characters'))
  address!: string;
}

/** An operator's action on a withdrawal: who acted is recorded with what it decided. */
export class ReconcileWithdrawalPayload extends WithdrawalCommandPayload implements ReconcileWithdrawalData {
  @MatchesPattern(INTERNAL_ID_PATTERN, 'must name the operator')
  operatorId!: string;
}

export class ResolveWithdrawalPayload extends ReconcileWithdrawalPayload implements ResolveWithdrawalData {
  @IsOneOf(['completed', 'failed'])
  outcome!: 'completed' | 'failed';

  @IsPlainText(1_000)
  reason!: string;

  @IsOptional()
  @MatchesPattern(/^(0x)?[0-9A-Fa-f]{64}$/, 'must be a 64-digit hexadecimal transaction hash')
  transactionHash?: string;
}

export const WITHDRAWAL_COMMAND_PAYLOADS: Record<WithdrawalCommandType, new () => object> = {
  RequestWithdrawal: RequestWithdrawalPayload,
  ResolveWithdrawal: ResolveWithdrawalPayload,
  ReconcileWithdrawal: ReconcileWithdrawalPayload,
};
