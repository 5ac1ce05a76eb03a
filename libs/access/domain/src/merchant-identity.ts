import { randomBytes } from 'node:crypto';

/** Merchant ids are public (sent as x-api-key); secrets are 32 random bytes, shown once. */
export function newMerchantId(): string {
  return `mch_${randomBytes(12).toString('hex')}`;
}

export function newApiSecret(): string {
  return `sk_${randomBytes(32).toString('base64url')}`;
}

/** Standard Webhooks secret format: `whsec_` and base64 of at least 24 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** The pattern lives with the other ids every hop checks. */
export { MERCHANT_ID_PATTERN, TEST_MERCHANT_ID_PREFIX, isTestMerchantId, testMerchantIdFor } from '@mp/shared-util-validation';

export function apiSecretAssociatedData(merchantId: string): string {
  return `merchant:${merchantId}/api-secret`;
}

export function webhookSecretAssociatedData(merchantId: string): string {
  return `merchant:${merchantId}/webhook-secret`;
}
