import type { MerchantClient } from '@mp/merchant-sdk';

/** Sends a payout to a card; amount + fee is frozen on the settlement balance until it finishes. */
export async function sendPayout(client: MerchantClient, orderId: string, amount: number, cardNumber: string, callbackUrl: string) {
  return client.payments.createOutgoing({
    order_id: orderId,
    amount,
    currency: 'RUB',
    country: 'RU',
    method: 'bank_card',
    account_number: cardNumber,
    callback_url: callbackUrl,
  });
}

/** The transfer confirmations the agent attached to a completed payout, downloaded. */
export async function downloadReceipts(client: MerchantClient, orderId: string) {
  const { data } = await client.payments.receipts(orderId);
  return Promise.all(data.map(async (receipt) => ({ fileName: receipt.file_name, ...(await client.payments.downloadReceipt(receipt.download_path)) })));
}
