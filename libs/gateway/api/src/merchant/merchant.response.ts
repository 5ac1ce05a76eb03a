import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { AMOUNT_PROPERTY } from '../openapi/list-page.response';

/** Endpoint 8 (and PATCH /v2/merchant). */
export class MerchantProfileResponse {
  @ApiProperty({ example: 'mer_0123456789abcdef01234567' })
  merchant_id!: string;

  @ApiProperty({ example: 'Shop' })
  name!: string;

  @ApiProperty({ enum: ['active', 'suspended'], example: 'active' })
  status!: 'active' | 'suspended';

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Where withdrawal and dispute outcomes are reported; null until set',
    example: 'https://shop.example/callbacks',
  })
  default_callback_url!: string | null;

  @ApiProperty({
    type: 'string',
    nullable: true,
    description: 'Where the payer page links back to for pay-ins without a return_url of their own; null until set',
    example: 'https://shop.example/orders',
  })
  default_return_url!: string | null;

  @ApiProperty({ format: 'date-time', example: '2026-01-01T12:00:00.000Z' })
  created_at!: string;

  @ApiProperty({
    type: 'boolean',
    nullable: true,
    description: 'Whether callbacks to the default URL stopped after it answered 410 Gone; null when the callback service cannot tell right now',
    example: false,
  })
  default_callback_url_disabled!: boolean | null;
}

export class SettlementBalanceResponse {
  @ApiProperty({ example: 'RUB' })
  currency!: string;

  @ApiProperty({ ...AMOUNT_PROPERTY, description: 'Spendable on payouts and withdrawals' })
  available!: number;

  @ApiProperty({ ...AMOUNT_PROPERTY, description: 'Held for payouts and withdrawals still in flight', example: 0 })
  frozen!: number;
}

export class DepositBalanceResponse {
  @ApiProperty({ example: 'RUB' })
  currency!: string;

  @ApiProperty({ ...AMOUNT_PROPERTY, description: 'The security deposit an operator keeps for the merchant' })
  available!: number;
}

/** Endpoint 9. */
export class BalancesResponse {
  @ApiProperty({ type: [SettlementBalanceResponse] })
  settlement!: SettlementBalanceResponse[];

  @ApiProperty({ type: [DepositBalanceResponse] })
  deposit!: DepositBalanceResponse[];
}

export class MethodFeeResponse {
  @ApiProperty({ type: 'number', description: 'Percent of the amount', example: 2.5 })
  percent!: number;

  @ApiProperty({ type: 'number', description: "Fixed part, in the entry's currency", example: 10 })
  fixed!: number;
}

/** One method a merchant may use (docs/api/money-and-fees.md); withdrawal assets are entries too. */
export class MethodEntryResponse {
  @ApiProperty({ description: 'The method, or the network of a withdrawal asset', example: 'card' })
  method!: string;

  @ApiProperty({ enum: ['incoming', 'outgoing', 'withdrawal'], example: 'incoming' })
  direction!: 'incoming' | 'outgoing' | 'withdrawal';

  @ApiProperty({ type: 'string', nullable: true, description: 'ISO 3166-1 alpha-2; null for withdrawals (a wallet has no country)', example: 'RU' })
  country!: string | null;

  @ApiProperty({ description: 'ISO 4217 code, or the withdrawal asset code', example: 'RUB' })
  currency!: string;

  @ApiPropertyOptional({ description: 'Withdrawals only: the settlement balance the asset draws on', example: 'USDT' })
  balance_currency?: string;

  @ApiProperty({ type: MethodFeeResponse })
  fee!: MethodFeeResponse;

  @ApiProperty({ ...AMOUNT_PROPERTY, example: 100 })
  min_amount!: number;

  @ApiProperty({ ...AMOUNT_PROPERTY, example: 300000 })
  max_amount!: number;
}

/** Endpoint 10. */
export class MethodsResponse {
  @ApiProperty({ type: [MethodEntryResponse] })
  data!: MethodEntryResponse[];
}

/** POST /v2/merchant/api-secret/rotate. */
export class ApiSecretRotationResponse {
  @ApiProperty({ example: 'mer_0123456789abcdef01234567' })
  merchant_id!: string;

  @ApiProperty({ description: 'The new API secret: shown once, stored only encrypted', example: 'sk_…' })
  api_secret!: string;

  @ApiProperty({ format: 'date-time', description: 'Until when the previous secret still verifies', example: '2026-01-02T12:00:00.000Z' })
  previous_secret_valid_until!: string;
}

/** POST /v2/merchant/webhook-secret/rotate. */
export class WebhookSecretRotationResponse {
  @ApiProperty({ example: 'mer_0123456789abcdef01234567' })
  merchant_id!: string;

  @ApiProperty({ description: 'The new webhook secret: shown once, stored only encrypted', example: 'whsec_…' })
  webhook_secret!: string;

  @ApiProperty({
    format: 'date-time',
    description: 'Until when callbacks also carry a signature with the previous secret',
    example: '2026-01-02T12:00:00.000Z',
  })
  previous_secret_valid_until!: string;
}
