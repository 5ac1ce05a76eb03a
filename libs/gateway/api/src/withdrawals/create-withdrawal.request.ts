import type { RequestWithdrawalData, WithdrawalAssetView } from '@mp/contracts-withdrawals';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { parseAmountLiteral } from '@mp/shared-util-money';
import { IsString, Matches, MaxLength, validateSync } from 'class-validator';
import { JsonNumberLiteral } from '../http/json-body';
import { ORDER_ID_PATTERN } from '../payments/create-payment.request';

/**
 * Spec 2.3: the body of endpoint 11. Form only: the withdrawals service checks the address
 * against the asset's network (400 INVALID_ADDRESS) and the amount against the minimum.
 * Kept as its own DTO class so it can move to the shared validation pipe unchanged.
 */
export class CreateWithdrawalBody {
  @IsString()
  @Matches(ORDER_ID_PATTERN, { message: 'must be 1 to 64 characters from A-Z a-z 0-9 . _ - : /' })
  order_id!: string;

  amount!: unknown;

  @IsString()
  @Matches(/^[A-Z0-9-]{2,20}$/, { message: 'must be an asset code from GET /v2/merchant/methods (direction "withdrawal"), e.g. USDT-TRC20' })
  currency!: string;

  @IsString()
  @MaxLength(128)
  address!: string;
}

const FIELDS = ['order_id', 'amount', 'currency', 'address'] as const;

/** Checks endpoint 11's body and converts the amount to minor units of the asset's balance currency; every problem at once. */
export function toRequestWithdrawalData(merchantId: string, body: Record<string, unknown>, assets: readonly WithdrawalAssetView[]): RequestWithdrawalData {
  const details: ErrorDetail[] = [];
  for (const field of FIELDS) if (body[field] === undefined || body[field] === null) details.push({ field, issue: 'is required' });
  for (const field of Object.keys(body)) if (!(FIELDS as readonly string[]).includes(field)) details.push({ field, issue: 'is not a known field' });

  const candidate = Object.assign(new CreateWithdrawalBody(), body);
  for (const error of validateSync(candidate, { forbidUnknownValues: false })) {
    if (details.some((detail) => detail.field === error.property)) continue;
    details.push({ field: error.property, issue: Object.values(error.constraints ?? {}).join('; ').replace(`${error.property} `, '') });
  }

  const asset = typeof body['currency'] === 'string' ? assets.find((entry) => entry.code === body['currency']) : undefined;
  if (typeof body['currency'] === 'string' && !asset && !details.some((detail) => detail.field === 'currency')) {
    details.push({ field: 'currency', issue: `must be one of ${assets.map((entry) => entry.code).join(', ')}` });
  }

  let amountMinor: bigint | null = null;
  const amount = body['amount'];
  if (amount !== undefined && amount !== null) {
    if (!(amount instanceof JsonNumberLiteral)) details.push({ field: 'amount', issue: 'must be a JSON number, e.g. 15.00' });
    else if (asset) {
      const parsed = parseAmountLiteral(amount.literal, asset.balance_asset);
      if (parsed.ok) amountMinor = parsed.amountMinor;
      else details.push({ field: 'amount', issue: parsed.reason === 'too_many_decimals' ? 'has more decimals than the asset allows' : parsed.reason.replace(/_/g, ' ') });
    }
  }

  if (details.length > 0 || amountMinor === null) throw new DomainError('VALIDATION_ERROR', 'The request is not valid', details);
  return { merchantId, orderId: candidate.order_id, amountMinor: amountMinor.toString(), currency: candidate.currency, address: candidate.address };
}
