import { Injectable } from '@nestjs/common';
import { MerchantCredentialStore } from '@mp/access-infrastructure';
import { validationError } from '@mp/shared-util-errors';

/**
 * Withdrawal and dispute outcomes are reported to the merchant's default callback URL
 * (decisions, Callbacks). A request whose outcome would have nowhere to go is refused before
 * anything moves, instead of being accepted and its outcome dropped: the merchant learns it at
 * once and can set the URL with PATCH /v2/merchant. The URL can be changed but never removed,
 * so an accepted withdrawal or dispute keeps somewhere to report to.
 */
@Injectable()
export class OutcomeCallbackDestination {
  constructor(private readonly merchants: MerchantCredentialStore) {}

  async require(merchantId: string, what: 'withdrawal' | 'dispute'): Promise<void> {
    const profile = await this.merchants.findProfile(merchantId);
    if (profile?.default_callback_url) return;
    throw validationError(
      [{ field: 'default_callback_url', issue: `the merchant profile has none, so the ${what}'s outcome could not be reported: set it with PATCH /v2/merchant first` }],
      `A ${what} reports its outcome by callback to the merchant's default_callback_url, and none is set`,
    );
  }
}
