import type { MerchantClient, Withdrawal } from '@mp/merchant-sdk';

/** Withdraws USDT to an Ethereum wallet; it is PENDING until the network confirms or refuses it. */
export async function withdrawUsdt(client: MerchantClient, orderId: string, amount: number, address: string): Promise<Withdrawal> {
  return client.withdrawals.create({ order_id: orderId, amount, currency: 'USDT-ERC20', address });
}

/** Withdrawals not finished yet, with the latest state of each. */
export async function pendingWithdrawals(client: MerchantClient): Promise<Withdrawal[]> {
  const pending: Withdrawal[] = [];
  for await (const withdrawal of client.withdrawals.list({ status: 'PENDING' })) pending.push(await client.withdrawals.get(withdrawal.order_id));
  return pending;
}
