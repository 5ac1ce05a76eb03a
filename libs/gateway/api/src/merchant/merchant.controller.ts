import { Body, Controller, Get, Patch } from '@nestjs/common';
import { ApiOperation, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { IsOptional, ValidateIf } from 'class-validator';
import { MerchantCredentialStore, type MerchantProfile } from '@mp/access-infrastructure';
import { DomainError, validationError } from '@mp/shared-util-errors';
import { formatAmountMinor } from '@mp/shared-util-money';
import { CurrentMerchant, RefusesReplay, type AuthenticatedMerchant } from '../auth/merchant-signature.guard';
import { ApiErrorResponses } from '../openapi/error.response';
import { MerchantApi } from '../openapi/merchant-api.decorator';
import { BalancesResponse, MerchantProfileResponse, MethodsResponse } from './merchant.response';
import { IsCallbackUrl } from '../payments/create-payment.request';
import { CALLBACK_DESTINATION_RULES, CALLBACK_URL_SCHEMA } from '../openapi/request-schemas';

const SETTINGS_INVALID = 'The merchant settings are not valid';
import { RequestMessages } from '@mp/shared-util-validation';
import { CallbacksClient } from '../callbacks/callbacks.client';
import { PaymentsClient } from '../payments/payments.client';
import { WithdrawalsReadClient } from '../withdrawals/withdrawals-read.client';
import { LedgerReadClient } from './ledger-read.client';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';

/**
 * The body of PATCH /v2/merchant: the settings a merchant may change itself, each optional, at
 * least one sent; a field not sent is left as it is. Unknown fields are refused.
 */
@RequestMessages({ invalid: SETTINGS_INVALID })
class UpdateMerchantBody {
  @ApiPropertyOptional({
    ...CALLBACK_URL_SCHEMA,
    description: `Where withdrawal and dispute outcomes are reported; once set it cannot be removed, only changed. ${CALLBACK_DESTINATION_RULES}`,
  })
  @ValidateIf((body: UpdateMerchantBody) => body.default_callback_url !== undefined)
  @IsCallbackUrl()
  default_callback_url?: string;

  @ApiPropertyOptional({
    ...CALLBACK_URL_SCHEMA,
    nullable: true,
    example: 'https://shop.example/orders',
    description: `Where the payer page links back to once a pay-in without a return_url of its own is final (null removes it). It applies to such pay-ins' pages from now on, those created before included. ${CALLBACK_DESTINATION_RULES}`,
  })
  @IsOptional()
  @IsCallbackUrl()
  default_return_url?: string | null;
}

/** Spec endpoints 8 to 10: merchant information; and PATCH, the merchant's own settings. */
@Controller('v2/merchant')
@MerchantApi('Merchant')
export class MerchantController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    private readonly payments: PaymentsClient,
    private readonly ledger: LedgerReadClient,
    private readonly withdrawals: WithdrawalsReadClient,
    private readonly callbacks: CallbacksClient,
    private readonly destinations: CallbackDestinationPolicy,
  ) {}

  /** Endpoint 8, plus whether the default callback URL was disabled by a 410 (null: cannot tell right now). */
  @Get()
  @ApiOperation({ operationId: 'getMerchant', summary: 'Merchant profile' })
  @ApiResponse({ status: 200, type: MerchantProfileResponse })
  @ApiErrorResponses('NOT_FOUND')
  async profile(@CurrentMerchant() merchant: AuthenticatedMerchant): Promise<MerchantProfileResponse> {
    return this.profileAnswer(await this.merchants.findProfile(merchant.merchantId));
  }

  /**
   * Sets the default callback URL (the only setting a merchant changes itself today). Answers
   * the profile as endpoint 8 does. Withdrawal and dispute outcomes created from now on, those
   * still pending, and those kept while the merchant had no URL are reported there.
   */
  @Patch()
  @ApiOperation({ operationId: 'updateMerchant', summary: "Change the merchant's own settings (the default callback and return URLs)" })
  @ApiResponse({ status: 200, type: MerchantProfileResponse })
  @ApiErrorResponses('NOT_FOUND', 'REQUEST_REPLAYED')
  @RefusesReplay()
  async updateProfile(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: UpdateMerchantBody): Promise<MerchantProfileResponse> {
    const { default_callback_url: callbackUrl, default_return_url: returnUrl } = body;
    if (callbackUrl === undefined && returnUrl === undefined) {
      throw validationError([{ field: 'default_callback_url', issue: 'send default_callback_url, default_return_url or both' }], SETTINGS_INVALID);
    }
    // Both are checked before either is stored: a refused field changes nothing.
    await this.destinations.assertAcceptable(merchant.merchantId, callbackUrl, 'default_callback_url');
    await this.destinations.assertAcceptable(merchant.merchantId, returnUrl, 'default_return_url');
    let profile = returnUrl === undefined ? null : await this.merchants.setDefaultReturnUrl(merchant.merchantId, returnUrl);
    if (callbackUrl !== undefined) {
      profile = await this.merchants.setDefaultCallbackUrl(merchant.merchantId, callbackUrl);
      // Withdrawal and dispute outcomes kept while the merchant had no URL go there now. Should the
      // dispatcher be unreachable, the answer is 503 and the URL is set: the same PATCH again (signed
      // anew) sends them, since it finds the outcomes still waiting.
      await this.callbacks.defaultUrlSet(merchant.merchantId, callbackUrl);
    }
    return this.profileAnswer(profile);
  }

  /** Endpoint 8's answer (also PATCH's): the profile and whether its default URL was disabled by a 410. */
  private async profileAnswer(profile: MerchantProfile | null): Promise<MerchantProfileResponse> {
    if (!profile) throw new DomainError('NOT_FOUND', 'No such merchant');
    const disabled = await this.callbacks.isDisabled(profile.merchant_id, profile.default_callback_url);
    return { ...profile, default_callback_url_disabled: disabled };
  }

  @Get('balances')
  @ApiOperation({ operationId: 'getBalances', summary: 'Settlement and deposit balances per currency' })
  @ApiResponse({ status: 200, type: BalancesResponse })
  @ApiErrorResponses()
  async balances(@CurrentMerchant() merchant: AuthenticatedMerchant) {
    return this.ledger.getBalances(merchant.merchantId);
  }

  /** docs/api/endpoints.md "10. Methods": each entry has method, direction, country, currency, fee {percent, fixed}, min_amount, max_amount. */
  @Get('methods')
  @ApiOperation({ operationId: 'listMethods', summary: 'Available pay-in, payout and withdrawal methods, with the platform fee' })
  @ApiResponse({ status: 200, type: MethodsResponse })
  @ApiErrorResponses()
  async methods(@CurrentMerchant() merchant: AuthenticatedMerchant) {
    const { data } = await this.payments.getMethods(merchant.merchantId);
    const entries = data.map((entry) => ({
      method: entry.method,
      direction: entry.direction,
      country: entry.country,
      currency: entry.currency,
      fee: { percent: formatBasisPointsAsPercent(entry.fee_rate_basis_points), fixed: formatAmountMinor(BigInt(entry.fee_fixed_minor), entry.currency) },
      min_amount: formatAmountMinor(BigInt(entry.min_amount_minor), entry.currency),
      max_amount: formatAmountMinor(BigInt(entry.max_amount_minor), entry.currency),
    }));
    return { data: [...entries, ...(await this.withdrawalEntries())] };
  }

  /**
   * docs/api/states.md "Withdrawals": each asset as an entry with direction
   * "withdrawal", method = its network, currency = its code and the network fee as the fixed
   * fee. No country: a wallet has none. No maximum beyond the platform's 10^12 units.
   */
  private async withdrawalEntries() {
    return (await this.withdrawals.getAssets()).map((asset) => ({
      method: asset.network,
      direction: 'withdrawal',
      country: null,
      currency: asset.code,
      balance_currency: asset.balance_asset,
      fee: { percent: '0', fixed: asset.network_fee },
      min_amount: asset.min_amount,
      max_amount: '1000000000000',
    }));
  }
}

/** 250 basis points → "2.5" (exact: basis points are whole hundredths of a percent). */
function formatBasisPointsAsPercent(basisPoints: number): string {
  const whole = Math.trunc(basisPoints / 100);
  const fraction = String(basisPoints % 100)
    .padStart(2, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}
