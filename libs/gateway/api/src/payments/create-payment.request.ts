import type { CreateIncomingPaymentData, CreateOutgoingPaymentData } from '@mp/contracts-payments';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { isKnownCurrency, parseAmountLiteral, type AmountParseFailure } from '@mp/shared-util-money';
import { IsString, Matches, MaxLength, validateSync } from 'class-validator';
import { JsonNumberLiteral } from '../http/json-body';

/** decisions.md: 1 to 64 characters from A-Z a-z 0-9 . _ - : / (case-sensitive). */
export const ORDER_ID_PATTERN = /^[A-Za-z0-9._:/-]{1,64}$/;
export const CALLBACK_URL_LENGTH_MAX = 2048;

/** Spec 2.1: the body of endpoint 1. Unknown fields are refused so a typo is not silently ignored. */
class CreateIncomingPaymentBody {
  @IsString()
  @Matches(ORDER_ID_PATTERN, { message: 'must be 1 to 64 characters from A-Z a-z 0-9 . _ - : /' })
  order_id!: string;

  amount!: unknown;

  @IsString()
  @Matches(/^[A-Z0-9]{3,10}$/, { message: 'must be a currency code from GET /v2/merchant/methods, e.g. RUB' })
  currency!: string;

  @IsString()
  @Matches(/^[A-Z]{2}$/, { message: 'must be a two-letter country code from GET /v2/merchant/methods, e.g. RU' })
  country!: string;

  @IsString()
  @MaxLength(CALLBACK_URL_LENGTH_MAX)
  callback_url!: string;
}

/** Spec 2.2: the body of endpoint 2. */
class CreateOutgoingPaymentBody extends CreateIncomingPaymentBody {
  @IsString()
  @Matches(/^[a-z0-9_]{1,40}$/, { message: 'must be a method from GET /v2/merchant/methods, e.g. bank_card' })
  method!: string;

  @IsString()
  @Matches(/^[A-Za-z0-9 +\-./:]{1,64}$/, { message: 'must be 1 to 64 characters: letters, digits, space and + - . / :' })
  account_number!: string;
}

const INCOMING_FIELDS = ['order_id', 'amount', 'currency', 'country', 'callback_url'] as const;
const OUTGOING_FIELDS = [...INCOMING_FIELDS, 'method', 'account_number'] as const;

const AMOUNT_ISSUES: Record<AmountParseFailure, string> = {
  not_a_number: 'must be a JSON number, e.g. 1500.00',
  not_positive: 'must be greater than 0',
  too_many_decimals: 'has more decimals than the currency allows',
  too_large: 'must be at most 1000000000000',
};

/**
 * Checks endpoint 1's body for form (the payments service checks it against the merchant's
 * methods) and converts the amount to integer minor units. Every problem is reported at once.
 */
export function toCreateIncomingPaymentData(merchantId: string, body: Record<string, unknown>, options: { allowHttpCallbackUrls: boolean }): CreateIncomingPaymentData {
  const validated = validateCreateBody(new CreateIncomingPaymentBody(), INCOMING_FIELDS, body, options);
  return { merchantId, orderId: validated.body.order_id, amountMinor: validated.amountMinor, currency: validated.body.currency, country: validated.body.country, callbackUrl: validated.body.callback_url };
}

/**
 * Endpoint 2's body, checked the same way, with the payout method and recipient account. The
 * account number is stored encrypted by payments before the command goes out with its reference.
 */
export function toCreateOutgoingPaymentData(merchantId: string, body: Record<string, unknown>, options: { allowHttpCallbackUrls: boolean }): Omit<CreateOutgoingPaymentData, 'recipientAccountRef'> & { accountNumber: string } {
  const { body: valid, amountMinor } = validateCreateBody(new CreateOutgoingPaymentBody(), OUTGOING_FIELDS, body, options);
  return {
    merchantId, orderId: valid.order_id, amountMinor, currency: valid.currency, country: valid.country, callbackUrl: valid.callback_url,
    method: valid.method, accountNumber: valid.account_number,
  };
}

function validateCreateBody<T extends CreateIncomingPaymentBody>(
  target: T,
  fields: readonly string[],
  body: Record<string, unknown>,
  options: { allowHttpCallbackUrls: boolean },
): { body: T; amountMinor: string } {
  const details: ErrorDetail[] = [];
  for (const field of fields) if (body[field] === undefined || body[field] === null) details.push({ field, issue: 'is required' });
  for (const field of Object.keys(body)) if (!fields.includes(field)) details.push({ field, issue: 'is not a known field' });

  const candidate = Object.assign(target, body);
  for (const error of validateSync(candidate, { forbidUnknownValues: false })) {
    if (details.some((detail) => detail.field === error.property)) continue;
    details.push({ field: error.property, issue: Object.values(error.constraints ?? {}).join('; ').replace(`${error.property} `, '') });
  }

  const callbackIssue = typeof body['callback_url'] === 'string' ? callbackUrlIssue(body['callback_url'], options.allowHttpCallbackUrls) : null;
  if (callbackIssue && !details.some((detail) => detail.field === 'callback_url')) details.push({ field: 'callback_url', issue: callbackIssue });

  const currency = typeof body['currency'] === 'string' ? body['currency'] : '';
  if (/^[A-Z0-9]{3,10}$/.test(currency) && !isKnownCurrency(currency)) details.push({ field: 'currency', issue: `${currency} is not a supported currency` });

  let amountMinor: bigint | null = null;
  const amount = body['amount'];
  if (amount !== undefined && amount !== null) {
    if (!(amount instanceof JsonNumberLiteral)) details.push({ field: 'amount', issue: AMOUNT_ISSUES.not_a_number });
    else if (isKnownCurrency(currency)) {
      const parsed = parseAmountLiteral(amount.literal, currency);
      if (parsed.ok) amountMinor = parsed.amountMinor;
      else details.push({ field: 'amount', issue: AMOUNT_ISSUES[parsed.reason] });
    }
  }

  if (details.length > 0 || amountMinor === null) throw new DomainError('VALIDATION_ERROR', 'The request is not valid', details);
  return { body: candidate, amountMinor: amountMinor.toString() };
}

function callbackUrlIssue(value: string, allowHttp: boolean): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:' && allowHttp) return null;
  return allowHttp ? 'must use https:// or http://' : 'must use https://';
}
