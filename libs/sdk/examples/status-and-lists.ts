import type { MerchantClient, PaymentOrder } from '@mp/merchant-sdk';

/** The order as it is now: the source of truth when a callback seems missing. */
export async function currentStatus(client: MerchantClient, orderId: string): Promise<string> {
  const order = await client.payments.status(orderId);
  return order.status;
}

/** Every pay-in that succeeded since a date, all pages, newest first. */
export async function succeededPayInsSince(client: MerchantClient, createdFrom: string): Promise<PaymentOrder[]> {
  const orders: PaymentOrder[] = [];
  for await (const order of client.payments.listIncoming({ status: 'SUCCEEDED', created_from: createdFrom, limit: 100 })) {
    orders.push(order);
  }
  return orders;
}

/** Cancels a pay-in nobody has paid yet; a finished one answers ORDER_NOT_CANCELLABLE with its status. */
export async function cancelUnpaid(client: MerchantClient, orderId: string): Promise<PaymentOrder> {
  return client.payments.cancel(orderId, { reason: 'customer left' });
}
