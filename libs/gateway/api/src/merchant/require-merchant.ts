import type { MerchantCredentialStore, MerchantProfile } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';

/** A merchant an operator's path names must exist: 404 NOT_FOUND otherwise, the answer MerchantIdParam gives a malformed id. */
export async function requireMerchant(merchants: Pick<MerchantCredentialStore, 'findProfile'>, merchantId: string): Promise<MerchantProfile> {
  const profile = await merchants.findProfile(merchantId);
  if (!profile) throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
  return profile;
}
