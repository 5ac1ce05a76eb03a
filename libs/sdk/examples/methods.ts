import type { MerchantClient } from '@mp/merchant-sdk';

/** The first pay-in method for a currency: its method, country and currency go verbatim into a create. */
export async function payInMethodFor(client: MerchantClient, currency: string) {
  const { data } = await client.merchant.methods();
  const method = data.find((entry) => entry.direction === 'incoming' && entry.currency === currency);
  if (!method) throw new Error(`no pay-in method for ${currency}`);
  return { method: method.method, country: method.country as string, currency, minAmount: method.min_amount, maxAmount: method.max_amount };
}
