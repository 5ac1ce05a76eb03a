import { createHash, randomBytes } from 'node:crypto';
import type { StoredReceiptView } from '@mp/contracts-payments';
import { checkReceiptFile, RECEIPT_BYTES_MAX, safeReceiptFileName } from '@mp/shared-util-validation';
import type { PayoutReceipt } from '@mp/payments-domain';
import type { EntityManager } from 'typeorm';

export { RECEIPT_BYTES_MAX };

/** A stored receipt without its content; the API answers it with `uploaded_at` as ISO 8601. */
export type PayoutReceiptRow = Omit<StoredReceiptView, 'uploaded_at'> & { uploaded_at: Date };

export async function storeReceipt(
  manager: EntityManager,
  upload: { merchantId: string; orderId: string; agentId: string; fileName: string; content: Buffer },
): Promise<PayoutReceiptRow> {
  const contentType = checkReceiptFile(upload.content, 'file');
  const fileName = safeReceiptFileName(upload.fileName);
  const rows: PayoutReceiptRow[] = await manager.query(
    `INSERT INTO payout_receipts (receipt_id, merchant_id, order_id, agent_id, file_name, content_type, size_bytes, content, sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     RETURNING receipt_id, merchant_id, order_id, agent_id, file_name, content_type, size_bytes, sha256, uploaded_at`,
    [
      `rcp_${randomBytes(12).toString('hex')}`,
      upload.merchantId,
      upload.orderId,
      upload.agentId,
      fileName,
      contentType,
      upload.content.length,
      upload.content,
      createHash('sha256').update(upload.content).digest('hex'),
    ],
  );
  return rows[0];
}

export async function findReceipt(manager: EntityManager, receiptId: string): Promise<PayoutReceiptRow | null> {
  const rows: PayoutReceiptRow[] = await manager.query(
    `SELECT receipt_id, merchant_id, order_id, agent_id, file_name, content_type, size_bytes, sha256, uploaded_at FROM payout_receipts WHERE receipt_id = $1`,
    [receiptId],
  );
  return rows[0] ?? null;
}

export async function readReceiptContent(manager: EntityManager, receiptId: string): Promise<Buffer | null> {
  const rows: Array<{ content: Buffer }> = await manager.query(`SELECT content FROM payout_receipts WHERE receipt_id = $1`, [receiptId]);
  return rows[0]?.content ?? null;
}

/** The receipt as the order's events carry it. */
export function receiptRefOf(receipt: PayoutReceiptRow): PayoutReceipt {
  return {
    receiptId: receipt.receipt_id,
    fileName: receipt.file_name,
    contentType: receipt.content_type,
    sizeBytes: receipt.size_bytes,
    uploadedAt: receipt.uploaded_at.toISOString(),
  };
}
