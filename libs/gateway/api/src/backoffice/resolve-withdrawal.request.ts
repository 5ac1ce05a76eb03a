import type { ResolveWithdrawalData } from '@mp/contracts-withdrawals';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength, validateSync } from 'class-validator';

/** An operator resolves a stuck withdrawal: `failed` returns the money, `completed` needs the hash found on the network. */
export class ResolveWithdrawalBody {
  @IsIn(['completed', 'failed'])
  outcome!: 'completed' | 'failed';

  @IsString()
  @MinLength(3)
  @MaxLength(1_000)
  reason!: string;

  @IsOptional()
  @IsString()
  @Matches(/^(0x)?[0-9A-Fa-f]{64}$/, { message: 'must be a 64-digit hexadecimal transaction hash' })
  transaction_hash?: string;
}

const FIELDS = ['outcome', 'reason', 'transaction_hash'];

export function toResolveWithdrawalData(merchantId: string, orderId: string, operatorId: string, body: Record<string, unknown>): ResolveWithdrawalData {
  const details: ErrorDetail[] = [];
  for (const field of Object.keys(body)) if (!FIELDS.includes(field)) details.push({ field, issue: 'is not a known field' });
  const candidate = Object.assign(new ResolveWithdrawalBody(), body);
  for (const error of validateSync(candidate, { forbidUnknownValues: false })) {
    details.push({ field: error.property, issue: Object.values(error.constraints ?? {}).join('; ').replace(`${error.property} `, '') });
  }
  if (candidate.outcome === 'completed' && candidate.transaction_hash === undefined) details.push({ field: 'transaction_hash', issue: 'is required when the outcome is completed' });
  if (candidate.outcome === 'failed' && candidate.transaction_hash !== undefined) details.push({ field: 'transaction_hash', issue: 'must be left out when the outcome is failed' });
  if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The resolution is not valid', details);
  return { merchantId, orderId, operatorId, outcome: candidate.outcome, reason: candidate.reason.trim(), ...(candidate.transaction_hash ? { transactionHash: candidate.transaction_hash } : {}) };
}
