import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { ResolveWithdrawalData } from '@mp/contracts-withdrawals';
import { FieldRule, IsOneOf, IsPlainText, MatchesPattern, RequestMessages, Trim } from '@mp/shared-util-validation';

/** The hash goes with a completion and only with it (one rule: IsOptional would skip the "required" case). */
const IsHashOfOutcome = () =>
  FieldRule('isHashOfOutcome', (value, args) => {
    const outcome = (args.object as { outcome?: unknown }).outcome;
    if (value === undefined) return outcome === 'completed' ? 'is required when the outcome is completed' : null;
    if (outcome === 'failed') return 'must be left out when the outcome is failed';
    return typeof value === 'string' && /^(0x)?[0-9A-Fa-f]{64}$/.test(value) ? null : 'must be a 64-digit hexadecimal transaction hash';
  });

/**
 * An operator resolves a stuck withdrawal: `failed` returns the money and is refused once
 * sending started (the transfer may land: reconcile instead); `completed` needs the hash found on the network.
 */
@RequestMessages({ invalid: 'The resolution is not valid' })
export class ResolveWithdrawalBody {
  @ApiProperty({ enum: ['completed', 'failed'] })
  @IsOneOf(['completed', 'failed'])
  outcome!: 'completed' | 'failed';

  @ApiProperty({ description: 'Why, for the audit trail', minLength: 3, maxLength: 1000 })
  @Trim()
  @IsPlainText(1000)
  @MatchesPattern(/^[^]{3,}$/, 'must explain the resolution')
  reason!: string;

  @ApiPropertyOptional({ description: 'The 64-digit hexadecimal hash found on the network; only with completed' })
  @IsHashOfOutcome()
  transaction_hash?: string;
}

export function toResolveWithdrawalData(merchantId: string, orderId: string, operatorId: string, body: ResolveWithdrawalBody): ResolveWithdrawalData {
  return {
    merchantId,
    orderId,
    operatorId,
    outcome: body.outcome,
    reason: body.reason,
    ...(body.transaction_hash ? { transactionHash: body.transaction_hash } : {}),
  };
}
