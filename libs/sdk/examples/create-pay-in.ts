import { isMerchantApiError, type MerchantClient } from '@mp/merchant-sdk';

/**
 * Creates a pay-in and returns the payer page to send the payer to. A retry (yours or the
 * SDK's) with the same order_id and body returns the same order, never a second one.
 * `returnUrl`: where the payer page links back to once the order is final; `metadata`: your own
 * reference data, returned by reads, lists, callbacks and the reconciliation report.
 */
export async function createPayIn(
  client: MerchantClient,
  orderId: string,
  amount: number,
  callbackUrl: string,
  shop: { returnUrl?: string; metadata?: Record<string, string> } = {},
): Promise<string> {
  try {
    const order = await client.payments.createIncoming({
      order_id: orderId,
      amount,
      currency: 'RUB',
      country: 'RU',
      callback_url: callbackUrl,
      ...(shop.returnUrl ? { return_url: shop.returnUrl } : {}),
      ...(shop.metadata ? { metadata: shop.metadata } : {}),
    });
    return order.redirect_url as string;
  } catch (error) {
    if (isMerchantApiError(error, 'DUPLICATE_ORDER')) {
      // The order_id is taken by an order with another amount, currency or metadata: a bug in our numbering.
      throw new Error(`order ${orderId} already exists differently: ${JSON.stringify(error.details)}`);
    }
    throw error;
  }
}
