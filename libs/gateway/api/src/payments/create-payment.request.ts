import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { CreateIncomingPaymentData, CreateOutgoingPaymentData } from '@mp/contracts-payments';
import {
  ACCOUNT_NUMBER_PATTERN,
  ACCOUNT_NUMBER_RULE,
  COUNTRY_PATTERN,
  decimalAmountToMinor,
  FieldRule,
  IsDecimalAmount,
  IsKnownCurrency,
  IsOrderId,
  JsonNumberLiteral,
  MatchesPattern,
  METHOD_PATTERN,
  ORDER_ID_PATTERN,
} from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { KNOWN_CURRENCIES } from '@mp/shared-util-money';
import {
  CALLBACK_DESTINATION_RULES,
  CALLBACK_URL_LENGTH_MAX,
  CALLBACK_URL_SCHEMA,
  MetadataRequestField,
  RETURN_URL_DESCRIPTION,
} from '../openapi/request-schemas';

export { CALLBACK_URL_LENGTH_MAX };

/** class-validator groups of the callback URL policy (ALLOW_HTTP_CALLBACK_URLS, development only). */
const CALLBACK_URLS_HTTPS_ONLY = 'callback-urls-https-only';
const CALLBACK_URLS_HTTP_ALLOWED = 'callback-urls-http-allowed';

function callbackUrlIssue(value: unknown, allowHttp: boolean): string | null {
  if (typeof value !== 'string') return 'must be an absolute URL';
  if (value.length > CALLBACK_URL_LENGTH_MAX) return `must be at most ${CALLBACK_URL_LENGTH_MAX} characters`;
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

/** An absolute https:// URL, or http:// too when the gateway allows it (the pipe picks the group). */
export function IsCallbackUrl(): PropertyDecorator {
  const httpsOnly = FieldRule('isCallbackUrl', (value) => callbackUrlIssue(value, false), { groups: [CALLBACK_URLS_HTTPS_ONLY] });
  const httpAllowed = FieldRule('isCallbackUrl', (value) => callbackUrlIssue(value, true), { groups: [CALLBACK_URLS_HTTP_ALLOWED] });
  return (target, property) => {
    httpsOnly(target, property);
    httpAllowed(target, property);
  };
}

/** The validation group of `IsCallbackUrl` under the gateway's callback URL policy; the gateway's request pipe applies it. */
export function callbackUrlGroup(allowHttpCallbackUrls: boolean): string {
  return allowHttpCallbackUrls ? CALLBACK_URLS_HTTP_ALLOWED : CALLBACK_URLS_HTTPS_ONLY;
}

const ORDER_ID_DESCRIPTION = 'Your id of the order, unique across both directions: 1 to 64 characters from A-Z a-z 0-9 . _ - : /';

/** What both create bodies have (spec 2.1 and 2.2). Unknown fields are refused so a typo is not silently ignored. */
class CreatePaymentBody {
  @ApiProperty({ description: ORDER_ID_DESCRIPTION, pattern: ORDER_ID_PATTERN.source, example: 'A-1001' })
  @IsOrderId()
  order_id!: string;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1_000_000_000_000,
    description:
      "A JSON number, read exactly: greater than 0, at most 10^12, with at most the currency's decimals (2 for RUB, 0 for JPY, 3 for KWD). It must also be within the chosen method's min and max of GET /v2/merchant/methods, which differ per merchant and method (400 PAYMENT_REJECTED otherwise).",
    example: 1500.5,
  })
  @IsDecimalAmount('currency')
  amount!: JsonNumberLiteral;

  @ApiProperty({
    description:
      "A currency of GET /v2/merchant/methods: one the platform knows (this list), and one of the merchant's methods for the country (400 PAYMENT_REJECTED otherwise)",
    enum: KNOWN_CURRENCIES,
    example: 'RUB',
  })
  @IsKnownCurrency('must be a currency code from GET /v2/merchant/methods, e.g. RUB')
  currency!: string;

  @ApiProperty({ description: 'A country of GET /v2/merchant/methods', pattern: COUNTRY_PATTERN.source, example: 'RU' })
  @MatchesPattern(COUNTRY_PATTERN, 'must be a two-letter country code from GET /v2/merchant/methods, e.g. RU')
  country!: string;

  @ApiProperty({ ...CALLBACK_URL_SCHEMA, description: `Where status callbacks go. ${CALLBACK_DESTINATION_RULES}` })
  @IsCallbackUrl()
  callback_url!: string;

  @MetadataRequestField(true)
  metadata?: Record<string, string>;
}

const METHOD_ISSUE = 'must be a method from GET /v2/merchant/methods, e.g. bank_card';

/** Spec 2.1: the body of endpoint 1. */
export class CreateIncomingPaymentBody extends CreatePaymentBody {
  @ApiPropertyOptional({
    description:
      "One of the merchant's incoming methods for this country and currency (GET /v2/merchant/methods). Without it, the first incoming method in the merchant's catalog for the country and currency whose limits admit the amount.",
    pattern: METHOD_PATTERN.source,
    example: 'sbp',
  })
  @IsOptional()
  @MatchesPattern(METHOD_PATTERN, METHOD_ISSUE)
  method?: string;

  @ApiPropertyOptional({ ...CALLBACK_URL_SCHEMA, example: 'https://shop.example/orders/A-1001', description: RETURN_URL_DESCRIPTION })
  @IsOptional()
  @IsCallbackUrl()
  return_url?: string;
}

/** Spec 2.2: the body of endpoint 2, with the payout method and recipient account. */
export class CreateOutgoingPaymentBody extends CreatePaymentBody {
  /** Its own example: the pay-in's would name an order of the other direction (409 DUPLICATE_ORDER). */
  @ApiProperty({ description: ORDER_ID_DESCRIPTION, pattern: ORDER_ID_PATTERN.source, example: 'P-1001' })
  declare order_id: string;

  @ApiProperty({ description: "One of the merchant's outgoing methods for this country and currency", pattern: METHOD_PATTERN.source, example: 'bank_card' })
  @MatchesPattern(METHOD_PATTERN, METHOD_ISSUE)
  method!: string;

  @ApiProperty({ description: 'The recipient account', pattern: ACCOUNT_NUMBER_PATTERN.source, example: '4111 1111 1111 1111' })
  @MatchesPattern(ACCOUNT_NUMBER_PATTERN, ACCOUNT_NUMBER_RULE)
  account_number!: string;
}

/** Endpoint 1's validated body as the command the payments service checks against the merchant's methods. */
export function toCreateIncomingPaymentData(merchantId: string, body: CreateIncomingPaymentBody): CreateIncomingPaymentData {
  return {
    merchantId,
    orderId: body.order_id,
    amountMinor: amountMinorOf(body),
    currency: body.currency,
    country: body.country,
    callbackUrl: body.callback_url,
    ...(body.method !== undefined && body.method !== null ? { method: body.method } : {}),
    ...(body.return_url !== undefined && body.return_url !== null ? { returnUrl: body.return_url } : {}),
    ...metadataOf(body),
  };
}

/**
 * Endpoint 2's command data, with the recipient account still in the clear: the controller
 * stores it encrypted through payments first and sends the command with its reference only.
 */
export function toCreateOutgoingPaymentData(
  merchantId: string,
  body: CreateOutgoingPaymentBody,
): Omit<CreateOutgoingPaymentData, 'recipientAccountRef'> & { accountNumber: string } {
  return {
    merchantId,
    orderId: body.order_id,
    amountMinor: amountMinorOf(body),
    currency: body.currency,
    country: body.country,
    callbackUrl: body.callback_url,
    method: body.method,
    accountNumber: body.account_number,
    ...metadataOf(body),
  };
}

/** The command carries metadata only when the merchant sent some; absent and `{}` mean the same. */
export function metadataOf(body: { metadata?: Record<string, string> | null }): { metadata?: Record<string, string> } {
  return body.metadata !== undefined && body.metadata !== null ? { metadata: body.metadata } : {};
}

function amountMinorOf(body: CreatePaymentBody): string {
  const parsed = decimalAmountToMinor(body.amount, body.currency);
  if (!parsed.ok) throw new Error(`invariant: a validated amount converts (${parsed.reason})`);
  return parsed.amountMinor.toString();
}
