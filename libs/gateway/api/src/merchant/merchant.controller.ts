import { Body, Controller, Get, Patch, Res, UseGuards } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { MerchantCredentialStore, type MerchantProfile } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';
import { formatAmountMinor } from '@mp/shared-util-money';
import type { FastifyReply } from 'fastify';
import { CurrentMerchant, MerchantSignatureGuard, type AuthenticatedMerchant } from '../auth/merchant-signature.guard';
import { stringifyResponse } from '../http/json-body';
import { CALLBACK_URL_LENGTH_MAX, IsCallbackUrl } from '../payments/create-payment.request';
import { RequestMessages } from '@mp/shared-util-validation';
import { CallbacksClient } from '../callbacks/callbacks.client';
import { PaymentsReadClient } from '../payments/payments-read.client';
import { WithdrawalsReadClient } from '../withdrawals/withdrawals-read.client';
import { LedgerReadClient } from './ledger-read.client';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';

/** The body of PATCH /v2/merchant: the settings a merchant may change itself. Unknown fields are refused. */
@RequestMessages({ invalid: 'The merchant settings are not valid' })
class UpdateMerchantBody {
  @ApiProperty({ description: 'Where withdrawal and dispute outcomes are reported: an absolute https:// URL', maxLength: CALLBACK_URL_LENGTH_MAX, example: 'https://shop.example/callbacks' })
  @IsCallbackUrl()
  default_callback_url!: string;
}

/** Spec endpoints 8 to 10: merchant information; and PATCH, the merchant's own settings. */
@Controller('v2/merchant')
@UseGuards(MerchantSignatureGuard)
export class MerchantController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    private readonly payments: PaymentsReadClient,
    private readonly ledger: LedgerReadClient,
    private readonly withdrawals: WithdrawalsReadClient,
    private readonly callbacks: CallbacksClient,
    private readonly destinations: CallbackDestinationPolicy,
  ) {}

  /** Endpoint 8, plus whether the default callback URL was disabled by a 410 (null: cannot tell right now). */
  @Get()
  async profile(@CurrentMerchant() merchant: AuthenticatedMerchant, @Res() reply: FastifyReply): Promise<void> {
    await this.sendProfile(await this.merchants.findProfile(merchant.merchantId), reply);
  }

  /**
   * Sets the default callback URL (the only setting a merchant changes itself today). Answers
   * the profile as endpoint 8 does. Withdrawal and dispute outcomes created from now on, and
   * those still pending, are reported there.
   */
  @Patch()
  async updateProfile(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: UpdateMerchantBody, @Res() reply: FastifyReply): Promise<void> {
    await this.destinations.assertAcceptable(merchant.merchantId, body.default_callback_url, 'default_callback_url');
    await this.sendProfile(await this.merchants.setDefaultCallbackUrl(merchant.merchantId, body.default_callback_url), reply);
  }

  /** Endpoint 8's answer (also PATCH's): the profile and whether its default URL was disabled by a 410. */
  private async sendProfile(profile: MerchantProfile | null, reply: FastifyReply): Promise<void> {
    if (!profile) throw new DomainError('NOT_FOUND', 'No such merchant');
    const disabled = await this.callbacks.isDisabled(profile.merchant_id, profile.default_callback_url);
    await reply.status(200).type('application/json').send(stringifyResponse({ ...profile, default_callback_url_disabled: disabled }));
  }

  @Get('balances')
  async balances(@CurrentMerchant() merchant: AuthenticatedMerchant, @Res() reply: FastifyReply): Promise<void> {
    await reply.status(200).type('application/json').send(stringifyResponse(await this.ledger.getBalances(merchant.merchantId)));
  }

  /** decisions.md: each entry has method, direction, country, currency, fee {percent, fixed}, min_amount, max_amount. */
  @Get('methods')
  async methods(@CurrentMerchant() merchant: AuthenticatedMerchant, @Res() reply: FastifyReply): Promise<void> {
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
    await reply.status(200).type('application/json').send(stringifyResponse({ data: [...entries, ...(await this.withdrawalEntries())] }));
  }

  /**
   * decisions.md "Crypto assets and withdrawals": each asset as an entry with direction
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
  const fraction = String(basisPoints % 100).padStart(2, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}
