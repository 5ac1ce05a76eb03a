import { DomainError } from '@mp/shared-util-errors';

/** Receipts (payout receipts, dispute evidence): PDF, PNG or JPEG, 1 byte to 5 MB. */
export const RECEIPT_BYTES_MAX = 5 * 1024 * 1024;

export type ReceiptContentType = 'application/pdf' | 'image/png' | 'image/jpeg';

/**
 * The file type from its first bytes, never from what the uploader claims: a receipt named
 * .pdf that is really an executable is refused.
 */
export function detectReceiptType(content: Buffer): ReceiptContentType | null {
  if (content.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (content.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (content.length >= 3 && content[0] === 0xff && content[1] === 0xd8 && content[2] === 0xff) return 'image/jpeg';
  return null;
}

/** Checks size and magic bytes; answers the detected type or a VALIDATION_ERROR naming `field`. */
export function checkReceiptFile(content: Buffer, field: string): ReceiptContentType {
  if (content.length === 0 || content.length > RECEIPT_BYTES_MAX) {
    throw new DomainError('VALIDATION_ERROR', 'A receipt is 1 byte to 5 MB', [{ field, issue: `is ${content.length} bytes` }]);
  }
  const contentType = detectReceiptType(content);
  if (!contentType) throw new DomainError('VALIDATION_ERROR', 'A receipt must be a PDF, PNG or JPEG file', [{ field, issue: 'is not a PDF, PNG or JPEG' }]);
  return contentType;
}

/** A file name safe to store and show back. */
export function safeReceiptFileName(fileName: string): string {
  return fileName.replace(/[^\w.\- ]/g, '_').slice(0, 200) || 'receipt';
}
