import type { DisputeList, DisputeStatus, DisputeView, OperatorDisputeList } from '@mp/contracts-disputes';
import type { ExistingDispute } from '@mp/disputes-domain';
import { DomainError } from '@mp/shared-util-errors';
import { fetchNewestFirstPage, PositionCursor, SqlConditions } from '@mp/shared-data-access-postgres';
import { formatAmountMinor } from '@mp/shared-util-money';
import type { EntityManager } from 'typeorm';

interface DisputeRow {
  dispute_id: string;
  merchant_id: string;
  order_id: string;
  status: DisputeStatus;
  amount_minor: string | null;
  currency: string;
  comment: string | null;
  receipt: DisputeView['receipt'];
  review: DisputeView['review'];
  review_deadline: Date | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  list_position: string;
}

/** A DisputeRow's columns, named rather than `*` so the reads run as prepared statements (docs/decisions/prepared-statements.md). */
const DISPUTE_ROW_COLUMNS = `dispute_id, merchant_id, order_id, status, amount_minor, currency, comment, receipt, review, review_deadline, metadata, created_at, updated_at,
  list_position`;

/** The state object of endpoints 14 and 16 and the list item of 15, built from the decider's state. */
export function disputeView(dispute: ExistingDispute): DisputeView {
  const { evidence, review } = dispute;
  return {
    dispute_id: dispute.disputeId,
    order_id: dispute.orderId,
    status: dispute.status,
    amount: evidence.amountMinor === null ? null : formatAmountMinor(evidence.amountMinor, dispute.currency),
    currency: dispute.currency,
    comment: evidence.comment,
    receipt: evidence.receipt
      ? { file_name: evidence.receipt.fileName, content_type: evidence.receipt.contentType, size_bytes: evidence.receipt.sizeBytes }
      : null,
    created_at: dispute.createdAt,
    updated_at: dispute.updatedAt,
    review_deadline: dispute.reviewDeadline,
    metadata: dispute.metadata,
    review: review
      ? {
          decision: review.decision,
          reason: review.reason,
          settled_amount: review.settledAmountMinor === null ? null : formatAmountMinor(review.settledAmountMinor, dispute.currency),
          reviewed_at: review.reviewedAt,
        }
      : null,
  };
}

/** Writes the dispute's current state object; a row already at a later stream version is left alone. */
export async function saveDisputeProjection(manager: EntityManager, dispute: ExistingDispute, streamVersion: number): Promise<void> {
  const view = disputeView(dispute);
  await manager.query(
    `INSERT INTO disputes (dispute_id, merchant_id, order_id, status, amount_minor, currency, comment, receipt, review, created_at, updated_at, stream_version, review_deadline, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
     ON CONFLICT (dispute_id) DO UPDATE SET
       status = EXCLUDED.status, amount_minor = EXCLUDED.amount_minor, comment = EXCLUDED.comment, receipt = EXCLUDED.receipt, metadata = EXCLUDED.metadata,
       review = EXCLUDED.review, updated_at = EXCLUDED.updated_at, stream_version = EXCLUDED.stream_version, review_deadline = EXCLUDED.review_deadline
     WHERE disputes.stream_version < EXCLUDED.stream_version`,
    [
      dispute.disputeId,
      dispute.merchantId,
      dispute.orderId,
      dispute.status,
      dispute.evidence.amountMinor?.toString() ?? null,
      dispute.currency,
      dispute.evidence.comment,
      view.receipt === null ? null : JSON.stringify(view.receipt),
      view.review === null ? null : JSON.stringify(view.review),
      dispute.createdAt,
      dispute.updatedAt,
      streamVersion,
      dispute.reviewDeadline,
      JSON.stringify(dispute.metadata),
    ],
  );
}

function rowToView(row: DisputeRow): DisputeView {
  return {
    dispute_id: row.dispute_id,
    order_id: row.order_id,
    status: row.status,
    amount: row.amount_minor === null ? null : formatAmountMinor(BigInt(row.amount_minor), row.currency),
    currency: row.currency,
    comment: row.comment,
    receipt: row.receipt,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    review_deadline: row.review_deadline?.toISOString() ?? null,
    metadata: row.metadata,
    review: row.review,
  };
}

/** Another merchant's dispute and a missing one are the same not-found. */
export async function findDisputeView(manager: EntityManager, merchantId: string, disputeId: string): Promise<DisputeView> {
  const rows: DisputeRow[] = await manager.query(`SELECT ${DISPUTE_ROW_COLUMNS} FROM disputes WHERE merchant_id = $1 AND dispute_id = $2`, [
    merchantId,
    disputeId,
  ]);
  if (!rows[0]) throw new DomainError('DISPUTE_NOT_FOUND', `No dispute ${disputeId}`);
  return rowToView(rows[0]);
}

/** Which (merchant, order) a dispute is about, for reviews that name only the dispute. */
export async function findDisputeOrder(manager: EntityManager, disputeId: string): Promise<{ merchantId: string; orderId: string } | null> {
  const rows: Array<{ merchant_id: string; order_id: string }> = await manager.query(`SELECT merchant_id, order_id FROM disputes WHERE dispute_id = $1`, [
    disputeId,
  ]);
  return rows[0] ? { merchantId: rows[0].merchant_id, orderId: rows[0].order_id } : null;
}

export interface DisputeListFilter {
  /** One merchant's disputes (endpoint 15); every merchant's when absent (the operators' queue). */
  merchantId?: string;
  status?: DisputeStatus;
  /** The dispute of one order (at most one: the table is unique by merchant and order). */
  orderId?: string;
  createdFrom?: Date;
  createdTo?: Date;
  limit: number;
  cursor?: string;
}

const DISPUTE_LIST_CURSOR = new PositionCursor('d');

/** Newest first, paged by an opaque cursor over the row's creation position (as the order lists). */
export async function listDisputes(manager: EntityManager, filter: DisputeListFilter & { merchantId: string }): Promise<DisputeList> {
  return listDisputeRows(manager, filter, rowToView);
}

/** The operators' queue: every merchant's disputes, newest first, each with its merchant. */
export async function listDisputesAcrossMerchants(manager: EntityManager, filter: DisputeListFilter): Promise<OperatorDisputeList> {
  return listDisputeRows(manager, filter, (row) => ({ merchant_id: row.merchant_id, ...rowToView(row) }));
}

async function listDisputeRows<View>(
  manager: EntityManager,
  filter: DisputeListFilter,
  view: (row: DisputeRow) => View,
): Promise<{ data: View[]; has_more: boolean; next_cursor: string | null }> {
  const where = new SqlConditions();
  if (filter.merchantId !== undefined) where.add('merchant_id = ?', filter.merchantId);
  if (filter.status !== undefined) where.add('status = ?', filter.status);
  if (filter.orderId !== undefined) where.add('order_id = ?', filter.orderId);
  if (filter.createdFrom !== undefined) where.add('created_at >= ?', filter.createdFrom);
  if (filter.createdTo !== undefined) where.add('created_at <= ?', filter.createdTo);
  const page = await fetchNewestFirstPage<DisputeRow>(manager, {
    select: `SELECT ${DISPUTE_ROW_COLUMNS} FROM disputes`,
    where,
    positionColumn: 'disputes.list_position',
    positionOf: (row) => row.list_position,
    cursor: DISPUTE_LIST_CURSOR,
    after: filter.cursor,
    limit: filter.limit,
  });
  return { data: page.rows.map(view), has_more: page.hasMore, next_cursor: page.nextCursor };
}
