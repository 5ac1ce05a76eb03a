import { randomBytes } from 'node:crypto';
import type { DisputeReceiptRef } from '@mp/disputes-domain';
import { checkReceiptFile, safeReceiptFileName } from '@mp/shared-util-validation';
import type { EntityManager } from 'typeorm';

/**
 * A merchant's dispute evidence file, kept in the disputes database before the open command is
 * sent; the command and every event carry only its reference and metadata, never the bytes.
 * The type comes from the magic bytes (shared receipt check), not from what the client claims.
 */
export async function storeDisputeReceipt(manager: EntityManager, merchantId: string, fileName: string, content: Buffer): Promise<DisputeReceiptRef> {
  const contentType = checkReceiptFile(content, 'receipt.content_base64');
  const receipt = { receiptId: `rcp_${randomBytes(12).toString('hex')}`, fileName: safeReceiptFileName(fileName), contentType, sizeBytes: content.length };
  await manager.query(`INSERT INTO dispute_receipts (receipt_id, merchant_id, file_name, content_type, size_bytes, content) VALUES ($1, $2, $3, $4, $5, $6)`, [
    receipt.receiptId, merchantId, receipt.fileName, receipt.contentType, receipt.sizeBytes, content,
  ]);
  return receipt;
}

export async function findDisputeReceipt(manager: EntityManager, merchantId: string, receiptId: string): Promise<DisputeReceiptRef | null> {
  const rows: Array<{ receipt_id: string; file_name: string; content_type: string; size_bytes: number }> = await manager.query(
    `SELECT receipt_id, file_name, content_type, size_bytes FROM dispute_receipts WHERE merchant_id = $1 AND receipt_id = $2`,
    [merchantId, receiptId],
  );
  const row = rows[0];
  return row ? { receiptId: row.receipt_id, fileName: row.file_name, contentType: row.content_type, sizeBytes: row.size_bytes } : null;
}
