import { createHash, randomBytes } from 'node:crypto';
import type { StoredReceiptView } from '@mp/contracts-payments-api';
import { DomainError } from '@mp/shared-util-errors';
import type { EntityManager } from 'typeorm';

export const RECEIPT_BYTES_MAX = 5 * 1024 * 1024;

/** A stored receipt without its content; the API answers it with `uploaded_at` as ISO 8601. */
export type PayoutReceiptRow = Omit<StoredReceiptView, 'uploaded_at'> & { uploaded_at: Date };

/**
 * The file type from its first bytes, never from what the uploader claims: a receipt named
 * .pdf that is really an executable is refused.
 */
export function detectReceiptType(content: Buffer): PayoutReceiptRow['content_type'] | null {
  if (content.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (content.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (content.length >= 3 && content[0] === 0xff && content[1] === 0xd8 && content[2] === 0xff) return 'image/jpeg';
  return null;
}

export async function storeReceipt(
  manager: EntityManager,
  upload: { merchantId: string; orderId: string; agentId: string; fileName: string; content: Buffer },
): Promise<PayoutReceiptRow> {
  if (upload.content.length === 0 || upload.content.length > RECEIPT_BYTES_MAX) {
    throw new DomainError('VALIDATION_ERROR', 'A receipt is 1 byte to 5 MB', [{ field: 'file', issue: `is ${upload.content.length} bytes` }]);
  }
  const contentType = detectReceiptType(upload.content);
  if (!contentType) throw new DomainError('VALIDATION_ERROR', 'A receipt must be a PDF, PNG or JPEG file', [{ field: 'file', issue: 'is not a PDF, PNG or JPEG' }]);
  const fileName = upload.fileName.replace(/[^\w.\- ]/g, '_').slice(0, 200) || 'receipt';
  const rows: PayoutReceiptRow[] = await manager.query(
    `INSERT INTO payout_receipts (receipt_id, merchant_id, order_id, agent_id, file_name, content_type, size_bytes, content, sha256)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     RETURNING receipt_id, merchant_id, order_id, agent_id, file_name, content_type, size_bytes, sha256, uploaded_at`,
    [
      `rcp_${randomBytes(12).toString('hex')}`, upload.merchantId, upload.orderId, upload.agentId, fileName, contentType, upload.content.length, upload.content,
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
