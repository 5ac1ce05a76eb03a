import { randomUUID } from 'node:crypto';
import type { ConversionRequest } from '@mp/contracts-ledger';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { isKnownCurrency, parseAmountLiteral } from '@mp/shared-util-money';
import { IsOptional, IsString, Matches, MaxLength, MinLength, validateSync } from 'class-validator';
import { JsonNumberLiteral } from '../http/json-body';

/**
 * An operator's conversion (decisions.md "Crypto assets and withdrawals"): `amount` of
 * `from_currency` settlement into `to_currency` at `rate` (a decimal string: units of the target
 * per unit of the source), less the platform's conversion fee. `conversion_id` makes it
 * idempotent; without one a new id is made (so a retry must pass the id it got back).
 */
export class ConversionBody {
  @IsOptional()
  @IsString()
  @Matches(/^[A-Za-z0-9._:-]{1,64}$/, { message: 'must be 1 to 64 characters from A-Z a-z 0-9 . _ : -' })
  conversion_id?: string;

  @IsString()
  from_currency!: string;

  @IsString()
  to_currency!: string;

  amount!: unknown;

  @IsString()
  @Matches(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,18})?$/, { message: 'must be a decimal string with at most 18 decimals, e.g. "0.0108"' })
  rate!: string;

  @IsString()
  @MinLength(3)
  @MaxLength(1_000)
  reason!: string;
}

const FIELDS = ['conversion_id', 'from_currency', 'to_currency', 'amount', 'rate', 'reason'];
const REQUIRED = FIELDS.filter((field) => field !== 'conversion_id');

export function toConversionRequest(body: Record<string, unknown>, operatorId: string): ConversionRequest {
  const details: ErrorDetail[] = [];
  for (const field of REQUIRED) if (body[field] === undefined || body[field] === null) details.push({ field, issue: 'is required' });
  for (const field of Object.keys(body)) if (!FIELDS.includes(field)) details.push({ field, issue: 'is not a known field' });
  const candidate = Object.assign(new ConversionBody(), body);
  for (const error of validateSync(candidate, { forbidUnknownValues: false })) {
    if (details.some((detail) => detail.field === error.property)) continue;
    details.push({ field: error.property, issue: Object.values(error.constraints ?? {}).join('; ').replace(`${error.property} `, '') });
  }
  for (const field of ['from_currency', 'to_currency'] as const) {
    if (typeof body[field] === 'string' && !isKnownCurrency(body[field])) details.push({ field, issue: 'must be a supported currency' });
  }
  let amountMinor: bigint | null = null;
  const amount = body['amount'];
  if (amount !== undefined && amount !== null) {
    if (!(amount instanceof JsonNumberLiteral)) details.push({ field: 'amount', issue: 'must be a JSON number' });
    else if (isKnownCurrency(candidate.from_currency)) {
      const parsed = parseAmountLiteral(amount.literal, candidate.from_currency);
      if (parsed.ok) amountMinor = parsed.amountMinor;
      else details.push({ field: 'amount', issue: parsed.reason.replace(/_/g, ' ') });
    }
  }
  if (details.length > 0 || amountMinor === null) throw new DomainError('VALIDATION_ERROR', 'The conversion is not valid', details);
  return {
    conversion_id: candidate.conversion_id ?? randomUUID(),
    from_currency: candidate.from_currency,
    to_currency: candidate.to_currency,
    amount_minor: amountMinor.toString(),
    rate: candidate.rate,
    reason: candidate.reason.trim(),
    operator_id: operatorId,
  };
}
