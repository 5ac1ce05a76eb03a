import { randomBytes } from 'node:crypto';
import type { DisputeReceiptDownloadView } from '@mp/contracts-disputes';
import type { DisputeReceiptRef, DisputeReviewer } from '@mp/disputes-domain';
import { DomainError } from '@mp/shared-util-errors';
import { checkReceiptFile, safeReceiptFileName } from '@mp/shared-util-validation';
import type { EntityManager } from 'typeorm';

/**
 * A merchant's dispute evidence file, kept in the disputes database; the command and every
 * event carry only its reference and metadata, never the bytes. The type comes from the magic
 * bytes (shared receipt check), not from what the client claims.
 *
 * Life of a receipt (issue 17): the gateway stores it before it sends the open (5 MB do not go on
 * Kafka), unattached. The open's transaction attaches it to the dispute when the open is
 * accepted and deletes it when the open is refused; a reopen deletes the receipt it replaces.
 * What no open ever claims (the gateway gave up, the command never arrived) is deleted by the
 * sweep once older than the grace period. So the only files kept are current evidence.
 */
export async function storeDisputeReceipt(manager: EntityManager, merchantId: string, fileName: string, content: Buffer): Promise<DisputeReceiptRef> {
  const contentType = checkReceiptFile(content, 'receipt.content_base64');
  const receipt = { receiptId: `rcp_${randomBytes(12).toString('hex')}`, fileName: safeReceiptFileName(fileName), contentType, sizeBytes: content.length };
  await manager.query(`INSERT INTO dispute_receipts (receipt_id, merchant_id, file_name, content_type, size_bytes, content) VALUES ($1, $2, $3, $4, $5, $6)`, [
    receipt.receiptId,
    merchantId,
    receipt.fileName,
    receipt.contentType,
    receipt.sizeBytes,
    content,
  ]);
  return receipt;
}

/**
 * An unattached receipt for an open, locked until the open's transaction ends: the sweep cannot
 * delete it in between, and after an accepted open it is attached, so the sweep leaves it.
 */
export async function claimDisputeReceipt(manager: EntityManager, merchantId: string, receiptId: string): Promise<DisputeReceiptRef | null> {
  const rows: Array<{ receipt_id: string; file_name: string; content_type: string; size_bytes: number }> = await manager.query(
    `SELECT receipt_id, file_name, content_type, size_bytes FROM dispute_receipts WHERE merchant_id = $1 AND receipt_id = $2 AND dispute_id IS NULL FOR UPDATE`,
    [merchantId, receiptId],
  );
  const row = rows[0];
  return row ? { receiptId: row.receipt_id, fileName: row.file_name, contentType: row.content_type, sizeBytes: row.size_bytes } : null;
}

/** The accepted open's receipt becomes its dispute's evidence. */
export async function attachDisputeReceipt(manager: EntityManager, merchantId: string, receiptId: string, disputeId: string): Promise<void> {
  await manager.query(`UPDATE dispute_receipts SET dispute_id = $3 WHERE merchant_id = $1 AND receipt_id = $2`, [merchantId, receiptId, disputeId]);
}

/** The receipt a reopen replaced. */
export async function deleteDisputeReceipt(manager: EntityManager, merchantId: string, receiptId: string): Promise<void> {
  await manager.query(`DELETE FROM dispute_receipts WHERE merchant_id = $1 AND receipt_id = $2`, [merchantId, receiptId]);
}

/** A refused open's receipt; one that is some dispute's evidence is never touched. */
export async function discardUnclaimedReceipt(manager: EntityManager, merchantId: string, receiptId: string): Promise<void> {
  await manager.query(`DELETE FROM dispute_receipts WHERE merchant_id = $1 AND receipt_id = $2 AND dispute_id IS NULL`, [merchantId, receiptId]);
}

/** Receipts no open claimed within the grace period; returns how many were deleted. */
export async function deleteOrphanReceipts(manager: EntityManager, graceMs: number, batch: number): Promise<number> {
  // TypeORM answers a DELETE with [rows, affected row count].
  const [, deleted]: [unknown[], number] = await manager.query(
    `DELETE FROM dispute_receipts WHERE receipt_id IN (
       SELECT receipt_id FROM dispute_receipts WHERE dispute_id IS NULL AND stored_at < now() - make_interval(secs => $1::double precision / 1000) LIMIT $2
     ) AND dispute_id IS NULL`,
    [graceMs, batch],
  );
  return deleted;
}

/**
 * The current receipt of a dispute for a reviewer (an operator, or the agent of the order; any
 * other agent is told the dispute does not exist), recorded as a download in the same
 * transaction: no download goes unlogged.
 */
export async function downloadDisputeReceipt(
  manager: EntityManager,
  merchantId: string,
  disputeId: string,
  reviewer: DisputeReviewer,
): Promise<{ fileName: string; contentType: string; content: Buffer }> {
  return manager.transaction(async (transaction) => {
    const rows: Array<{ order_id: string; agent_id: string | null; receipt_id: string | null; file_name: string; content_type: string; content: Buffer }> =
      await transaction.query(
        // The agent who may review is the one the open recorded (the decider's rule for reviews).
        `SELECT d.order_id, opened.envelope->'data'->>'orderAgentId' AS agent_id, r.receipt_id, r.file_name, r.content_type, r.content
         FROM disputes d
         JOIN event_store opened ON opened.stream_id = $3 || d.merchant_id || ':' || d.order_id AND opened.stream_version = 1
         LEFT JOIN dispute_receipts r ON r.merchant_id = d.merchant_id AND r.dispute_id = d.dispute_id
        WHERE d.merchant_id = $1 AND d.dispute_id = $2`,
        [merchantId, disputeId, 'dispute:'],
      );
    const row = rows[0];
    if (!row || (reviewer.role === 'agent' && row.agent_id !== reviewer.id)) throw new DomainError('DISPUTE_NOT_FOUND', `No dispute ${disputeId}`);
    if (row.receipt_id === null) throw new DomainError('NOT_FOUND', 'The dispute carries no receipt');
    await transaction.query(
      `INSERT INTO dispute_receipt_downloads (merchant_id, dispute_id, order_id, receipt_id, file_name, reviewer_role, reviewer_id) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [merchantId, disputeId, row.order_id, row.receipt_id, row.file_name, reviewer.role, reviewer.id],
    );
    return { fileName: row.file_name, contentType: row.content_type, content: row.content };
  });
}

export interface ReceiptDownloadFilter {
  merchantId?: string;
  disputeId?: string;
  reviewerId?: string;
  limit: number;
}

/** The download log for operators, newest first. */
export async function listReceiptDownloads(manager: EntityManager, filter: ReceiptDownloadFilter): Promise<DisputeReceiptDownloadView[]> {
  const rows: Array<Omit<DisputeReceiptDownloadView, 'downloaded_at'> & { downloaded_at: Date }> = await manager.query(
    `SELECT download_id::text, merchant_id, dispute_id, order_id, receipt_id, file_name, reviewer_role, reviewer_id, downloaded_at FROM dispute_receipt_downloads
      WHERE ($1::text IS NULL OR merchant_id = $1) AND ($2::text IS NULL OR dispute_id = $2) AND ($3::text IS NULL OR reviewer_id = $3)
      ORDER BY download_id DESC LIMIT $4`,
    [filter.merchantId ?? null, filter.disputeId ?? null, filter.reviewerId ?? null, filter.limit],
  );
  return rows.map((row) => ({ ...row, downloaded_at: row.downloaded_at.toISOString() }));
}
