import { ApiProperty } from '@nestjs/swagger';
import type { ConversionRequest } from '@mp/contracts-ledger';
import {
  decimalAmountToMinor,
  IsDecimalAmount,
  IsKnownCurrency,
  IsPlainText,
  JsonNumberLiteral,
  MatchesPattern,
  RequestMessages,
  Trim,
} from '@mp/shared-util-validation';

/**
 * An operator's conversion (docs/operations/ledger.md, conversions): `amount` of
 * `from_currency` settlement into `to_currency` at `rate` (a decimal string: units of the target
 * per unit of the source), less the platform's conversion fee. `conversion_id` is required:
 * it makes a retry safe, and it names the conversion a second operator approves when the
 * amount is above the approval threshold.
 */
@RequestMessages({ invalid: 'The conversion is not valid' })
export class ConversionBody {
  @ApiProperty({ description: 'Required; makes a retry safe: the same id books once', pattern: '^[A-Za-z0-9._:-]{1,64}$' })
  @MatchesPattern(/^[A-Za-z0-9._:-]{1,64}$/, 'is required: 1 to 64 characters from A-Z a-z 0-9 . _ : -')
  conversion_id!: string;

  @ApiProperty({ example: 'RUB' })
  @IsKnownCurrency('must be a supported currency')
  from_currency!: string;

  @ApiProperty({ example: 'USDT' })
  @IsKnownCurrency('must be a supported currency')
  to_currency!: string;

  @ApiProperty({ type: 'number', description: 'A JSON number of from_currency, read exactly', example: 10000 })
  @IsDecimalAmount('from_currency')
  amount!: JsonNumberLiteral;

  @ApiProperty({ description: 'Units of to_currency per unit of from_currency, as a decimal string', example: '0.0108' })
  @MatchesPattern(/^(0|[1-9][0-9]{0,11})(\.[0-9]{1,18})?$/, 'must be a decimal string with at most 18 decimals, e.g. "0.0108"')
  rate!: string;

  @ApiProperty({ description: 'Why, for the audit trail', minLength: 3, maxLength: 1000 })
  @Trim()
  @IsPlainText(1000)
  @MatchesPattern(/^[^]{3,}$/, 'must explain the conversion')
  reason!: string;
}

/** The validated body as the ledger's internal request. */
export function toConversionRequest(body: ConversionBody, operatorId: string): ConversionRequest {
  const amount = decimalAmountToMinor(body.amount, body.from_currency);
  if (!amount.ok) throw new Error(`invariant: a validated amount converts (${amount.reason})`);
  return {
    conversion_id: body.conversion_id,
    from_currency: body.from_currency,
    to_currency: body.to_currency,
    amount_minor: amount.amountMinor.toString(),
    rate: body.rate,
    reason: body.reason,
    operator_id: operatorId,
  };
}
