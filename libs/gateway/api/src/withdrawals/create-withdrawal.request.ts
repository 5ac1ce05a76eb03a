import { applyDecorators } from '@nestjs/common';
import { ApiBody, ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import { WALLET_ADDRESS_MAX_LENGTH, WITHDRAWAL_ASSET_BALANCES, withdrawalBalanceAssetOf, type RequestWithdrawalData } from '@mp/contracts-withdrawals';
import { decimalAmountToMinor, FieldRule, IsOneOf, IsOrderId, JsonNumberLiteral, ORDER_ID_PATTERN, RequestMessages } from '@mp/shared-util-validation';
import { MetadataRequestField } from '../openapi/request-schemas';
import { metadataOf } from '../payments/create-payment.request';

const ASSET_CODES = Object.keys(WITHDRAWAL_ASSET_BALANCES);
const AMOUNT_ISSUES = {
  not_a_number: 'must be a JSON number, e.g. 15.00',
  not_positive: 'must be greater than 0',
  too_many_decimals: 'has more decimals than the asset allows',
  too_large: 'must be at most 1000000000000',
} as const;

/** A JSON number read exactly in the scale of the asset's balance currency; only the asset is reported when it is unknown. */
const IsAssetAmount = () =>
  FieldRule('isAssetAmount', (value, args) => {
    if (!(value instanceof JsonNumberLiteral)) return AMOUNT_ISSUES.not_a_number;
    const balanceAsset = withdrawalBalanceAssetOf(String((args.object as { currency?: unknown }).currency));
    if (balanceAsset === undefined) return null;
    const parsed = decimalAmountToMinor(value, balanceAsset);
    return parsed.ok ? null : AMOUNT_ISSUES[parsed.reason];
  });

/**
 * Spec 2.3: the body of endpoint 11, checked by the shared request pipe: every bad or unknown
 * field at once. The withdrawals service then checks the address against the asset's network
 * (400 INVALID_ADDRESS) and the amount against the asset's minimum.
 */
@RequestMessages({ invalid: 'The request is not valid' })
export class CreateWithdrawalBody {
  @ApiProperty({ description: 'Your id of the withdrawal: 1 to 64 characters from A-Z a-z 0-9 . _ - : /', pattern: ORDER_ID_PATTERN.source, example: 'W-1001' })
  @IsOrderId()
  order_id!: string;

  @ApiProperty({
    type: 'number',
    minimum: 0,
    exclusiveMinimum: true,
    maximum: 1_000_000_000_000,
    description:
      "A JSON number, read exactly: greater than 0, with at most the balance asset's decimals (6 for USDT). Amount plus the network fee must be within the asset's balance (400 INSUFFICIENT_FUNDS otherwise), and the amount at least the asset's minimum.",
    example: 15,
  })
  @IsAssetAmount()
  amount!: JsonNumberLiteral;

  @ApiProperty({ description: 'An asset code of GET /v2/merchant/methods (direction "withdrawal")', enum: ASSET_CODES, example: 'USDT-TRC20' })
  @IsOneOf(ASSET_CODES, `must be an asset code from GET /v2/merchant/methods (direction "withdrawal"): ${ASSET_CODES.join(', ')}`)
  currency!: string;

  @ApiProperty({
    description:
      "A wallet address on the asset's network, with a valid checksum: TRON (T..., base58check) for USDT-TRC20 and TRX, Ethereum (0x...) for USDT-ERC20 and ETH, Bitcoin (bc1... or base58check) for BTC; at most 100 characters (400 INVALID_ADDRESS otherwise)",
    minLength: 1,
    maxLength: WALLET_ADDRESS_MAX_LENGTH,
    example: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
  })
  @FieldRule('isAddressText', (value) =>
    typeof value === 'string' && value.length <= WALLET_ADDRESS_MAX_LENGTH ? null : `must be a string of at most ${WALLET_ADDRESS_MAX_LENGTH} characters`,
  )
  address!: string;

  @MetadataRequestField(true)
  metadata?: Record<string, string>;
}

/**
 * The address shape of each network (the withdrawals service's wallet-address.ts checks these and
 * their checksums): one branch per network, so a description-built client and the fuzzer send an
 * address of the asset's own network. The checksum (base58check, EIP-55, bech32) no pattern states.
 */
const ADDRESS_BY_NETWORK = [
  { assets: ['USDT-TRC20', 'TRX'], network: 'TRON: T and 33 more base58 characters', pattern: '^T[1-9A-HJ-NP-Za-km-z]{33}$' },
  { assets: ['USDT-ERC20', 'ETH'], network: 'Ethereum: 0x and 40 hex digits (mixed case must carry the EIP-55 checksum)', pattern: '^0x[0-9a-fA-F]{40}$' },
  {
    assets: ['BTC'],
    network: 'Bitcoin mainnet: bc1 bech32 (one case) or base58check starting 1 or 3',
    pattern: '^(bc1[02-9ac-hj-np-z]{8,87}|BC1[02-9AC-HJ-NP-Z]{8,87}|[13][1-9A-HJ-NP-Za-km-z]{25,34})$',
  },
] as const;

/** Endpoint 11's body in the description: CreateWithdrawalBody, and one of the networks' address shapes. */
export function ApiCreateWithdrawalBody(): MethodDecorator {
  const covered = ADDRESS_BY_NETWORK.flatMap(({ assets }) => assets);
  if (ASSET_CODES.some((code) => !covered.includes(code as (typeof covered)[number])))
    throw new Error(`invariant: every withdrawal asset has an address shape (${ASSET_CODES.join(', ')})`);
  return applyDecorators(
    ApiExtraModels(CreateWithdrawalBody),
    ApiBody({
      schema: {
        allOf: [{ $ref: getSchemaPath(CreateWithdrawalBody) }],
        oneOf: ADDRESS_BY_NETWORK.map(({ assets, network, pattern }) => ({
          title: network.split(':')[0],
          properties: { currency: { enum: [...assets] }, address: { type: 'string', pattern, description: network } },
        })),
      },
    }),
  );
}

/** Endpoint 11's validated body as the command data, the amount in minor units of the balance asset. */
export function toRequestWithdrawalData(merchantId: string, body: CreateWithdrawalBody): RequestWithdrawalData {
  const balanceAsset = withdrawalBalanceAssetOf(body.currency);
  if (balanceAsset === undefined) throw new Error(`invariant: a validated currency is an asset code (${body.currency})`);
  const amount = decimalAmountToMinor(body.amount, balanceAsset);
  if (!amount.ok) throw new Error(`invariant: a validated amount converts (${amount.reason})`);
  return {
    merchantId,
    orderId: body.order_id,
    amountMinor: amount.amountMinor.toString(),
    currency: body.currency,
    address: body.address,
    ...metadataOf(body),
  };
}
