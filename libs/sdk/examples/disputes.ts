import { readFile } from 'node:fs/promises';
import type { Dispute, MerchantClient } from '@mp/merchant-sdk';

/** Disputes a pay-in the payer paid but that did not succeed, with the payer's transfer receipt. */
export async function disputePayIn(client: MerchantClient, orderId: string, amount: number, receiptFile: string): Promise<Dispute> {
  const receipt = { file_name: 'transfer.png', content_type: 'image/png' as const, content_base64: (await readFile(receiptFile)).toString('base64') };
  return client.disputes.open({ order_id: orderId, amount, comment: 'The payer sent the money and has the bank receipt', receipt });
}

/** Disputes still waiting for a review. */
export async function openDisputes(client: MerchantClient): Promise<Dispute[]> {
  const disputes: Dispute[] = [];
  for await (const dispute of client.disputes.list({ status: 'OPEN' })) disputes.push(dispute);
  return disputes;
}
