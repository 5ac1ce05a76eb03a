import type { ApprovalKind, OperatorApproval } from '@mp/ledger-domain';
import type { EntityManager } from 'typeorm';

interface ApprovalRow {
  approval_id: string;
  kind: ApprovalKind;
  merchant_id: string;
  subject_id: string;
  terms: Record<string, string>;
  requested_by: string;
  requested_at: Date;
  expires_at: Date;
  status: OperatorApproval['status'];
  decided_by: string | null;
  decided_at: Date | null;
  decision_reason: string | null;
}

const COLUMNS = 'approval_id, kind, merchant_id, subject_id, terms, requested_by, requested_at, expires_at, status, decided_by, decided_at, decision_reason';

/** Locks the request, so two operators approving at once queue and the money moves once. */
export async function lockApproval(manager: EntityManager, approvalId: string): Promise<OperatorApproval | null> {
  const rows: ApprovalRow[] = await manager.query(`SELECT ${COLUMNS} FROM ledger_operator_approvals WHERE approval_id = $1 FOR UPDATE`, [approvalId]);
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * The request for a conversion or adjustment id, if any, with the id itself locked: a
 * transaction-scoped advisory lock on the id queues two identical requests arriving at once,
 * so the second finds the first's row instead of failing on the unique key (a 500).
 */
export async function lockApprovalOf(manager: EntityManager, merchantId: string, kind: ApprovalKind, subjectId: string): Promise<OperatorApproval | null> {
  await manager.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`ledger_operator_approvals:${merchantId}:${kind}:${subjectId}`]);
  const rows: ApprovalRow[] = await manager.query(
    `SELECT ${COLUMNS} FROM ledger_operator_approvals WHERE merchant_id = $1 AND kind = $2 AND subject_id = $3 FOR UPDATE`,
    [merchantId, kind, subjectId],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Requests by status, oldest first; `expired` are the pending ones past their expiry. */
export async function listApprovals(
  manager: EntityManager,
  filter: { status?: 'pending' | 'approved' | 'rejected' | 'expired'; merchantId?: string; now: Date; limit: number },
): Promise<OperatorApproval[]> {
  const conditions: string[] = [];
  const parameters: unknown[] = [];
  const parameter = (value: unknown) => `$${parameters.push(value)}`;
  if (filter.merchantId !== undefined) conditions.push(`merchant_id = ${parameter(filter.merchantId)}`);
  if (filter.status === 'pending') conditions.push(`status = 'pending' AND expires_at > ${parameter(filter.now)}`);
  else if (filter.status === 'expired') conditions.push(`status = 'pending' AND expires_at <= ${parameter(filter.now)}`);
  else if (filter.status !== undefined) conditions.push(`status = ${parameter(filter.status)}`);
  const where = conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';
  const rows: ApprovalRow[] = await manager.query(
    `SELECT ${COLUMNS} FROM ledger_operator_approvals ${where} ORDER BY requested_at, approval_id LIMIT ${parameter(filter.limit)}`,
    parameters,
  );
  return rows.map(fromRow);
}

/** Writes the state the decider evolved: inserts a new request, or records its decision. */
export async function saveApproval(manager: EntityManager, approval: OperatorApproval, isNew: boolean): Promise<void> {
  if (isNew) {
    await manager.query(`INSERT INTO ledger_operator_approvals (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`, [
      approval.approvalId,
      approval.kind,
      approval.merchantId,
      approval.subjectId,
      JSON.stringify(approval.terms),
      approval.requestedBy,
      approval.requestedAt,
      approval.expiresAt,
      approval.status,
      approval.decidedBy,
      approval.decidedAt,
      approval.decisionReason,
    ]);
    return;
  }
  await manager.query(`UPDATE ledger_operator_approvals SET status = $2, decided_by = $3, decided_at = $4, decision_reason = $5 WHERE approval_id = $1`, [
    approval.approvalId,
    approval.status,
    approval.decidedBy,
    approval.decidedAt,
    approval.decisionReason,
  ]);
}

function fromRow(row: ApprovalRow): OperatorApproval {
  return {
    approvalId: row.approval_id,
    kind: row.kind,
    merchantId: row.merchant_id,
    subjectId: row.subject_id,
    terms: row.terms,
    requestedBy: row.requested_by,
    requestedAt: new Date(row.requested_at),
    expiresAt: new Date(row.expires_at),
    status: row.status,
    decidedBy: row.decided_by,
    decidedAt: row.decided_at === null ? null : new Date(row.decided_at),
    decisionReason: row.decision_reason,
  };
}
