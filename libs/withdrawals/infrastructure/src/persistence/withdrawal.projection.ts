import type { BackofficeWithdrawalView, ReconciliationView, WithdrawalView } from '@mp/contracts-withdrawals';
import type { ExistingWithdrawal, ReconciliationEvidence, SendProgress, WithdrawalStatus } from '@mp/withdrawals-domain';
import { fetchNewestFirstPage, PositionCursor, SqlConditions, type NewestFirstPage } from '@mp/shared-data-access-postgres';
import { DomainError } from '@mp/shared-util-errors';
import { formatAmountMinor } from '@mp/shared-util-money';
import type { EntityManager } from 'typeorm';

export interface WithdrawalRow {
  merchant_id: string;
  order_id: string;
  status: WithdrawalStatus;
  send_progress: SendProgress;
  send_attempts: number;
  currency: string;
  network: string;
  balance_asset: string;
  amount_minor: string;
  network_fee_minor: string;
  address: string;
  transaction_hash: string | null;
  failure_reason: string | null;
  reconciliation: ReconciliationEvidence | null;
  metadata: Record<string, string>;
  created_at: Date;
  updated_at: Date;
  list_position: string;
}

export const WITHDRAWAL_COLUMNS = `merchant_id, order_id, status, send_progress, send_attempts, currency, network, balance_asset, amount_minor::text, network_fee_minor::text,
  address, transaction_hash, failure_reason, reconciliation, metadata, created_at, updated_at, list_position::text`;

/** Upserts the projection row of a withdrawal at `version`, in the command's transaction. */
export async function saveWithdrawalProjection(manager: EntityManager, withdrawal: ExistingWithdrawal, version: number): Promise<void> {
  await manager.query(
    `INSERT INTO withdrawals (merchant_id, order_id, status, send_progress, send_attempts, currency, network, balance_asset, amount_minor, network_fee_minor, address,
                              transaction_hash, failure_reason, created_at, updated_at, stream_version, reconciliation, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::numeric, $10::numeric, $11, $12, $13, $14, $15, $16, $17::jsonb, $18::jsonb)
     ON CONFLICT (merchant_id, order_id) DO UPDATE SET
       status = EXCLUDED.status, send_progress = EXCLUDED.send_progress, send_attempts = EXCLUDED.send_attempts,
       transaction_hash = EXCLUDED.transaction_hash, failure_reason = EXCLUDED.failure_reason,
       updated_at = EXCLUDED.updated_at, stream_version = EXCLUDED.stream_version, reconciliation = EXCLUDED.reconciliation`,
    [
      withdrawal.merchantId,
      withdrawal.orderId,
      withdrawal.status,
      withdrawal.sendProgress,
      withdrawal.sendAttempts,
      withdrawal.currency,
      withdrawal.network,
      withdrawal.balanceAsset,
      withdrawal.amountMinor.toString(),
      withdrawal.networkFeeMinor.toString(),
      withdrawal.address,
      withdrawal.transactionHash,
      withdrawal.failureReason,
      withdrawal.createdAt,
      withdrawal.updatedAt,
      version,
      withdrawal.reconciliation === null ? null : JSON.stringify(withdrawal.reconciliation),
      JSON.stringify(withdrawal.metadata),
    ],
  );
}

export async function findWithdrawal(manager: EntityManager, merchantId: string, orderId: string): Promise<WithdrawalRow | null> {
  const rows: WithdrawalRow[] = await manager.query(`SELECT ${WITHDRAWAL_COLUMNS} FROM withdrawals WHERE merchant_id = $1 AND order_id = $2`, [
    merchantId,
    orderId,
  ]);
  return rows[0] ?? null;
}

/** The merchant-facing state object, from the aggregate (command replies, events). */
export interface WithdrawalListFilter {
  merchantId: string;
  status?: WithdrawalStatus;
  createdFrom?: Date;
  createdTo?: Date;
  limit: number;
  cursor?: string;
}

// This list always refused a foreign cursor with these words; clients may match on them.
const WITHDRAWAL_LIST_CURSOR = new PositionCursor(
  'w',
  () => new DomainError('VALIDATION_ERROR', 'The list filters are not valid', [{ field: 'cursor', issue: 'is not a cursor this API returned' }]),
);

/** Endpoint 12: newest first, cursor pages over the creation position (no gaps, no repeats). */
export function listWithdrawals(manager: EntityManager, filter: WithdrawalListFilter): Promise<NewestFirstPage<WithdrawalRow>> {
  const where = new SqlConditions().add('merchant_id = ?', filter.merchantId);
  if (filter.status !== undefined) where.add('status = ?', filter.status);
  if (filter.createdFrom !== undefined) where.add('created_at >= ?', filter.createdFrom);
  if (filter.createdTo !== undefined) where.add('created_at <= ?', filter.createdTo);
  // Qualified: WITHDRAWAL_COLUMNS outputs `list_position::text AS list_position`, and ORDER BY on
  // the bare name would sort by that text ("9" after "25"), repeating and skipping rows.
  return fetchNewestFirstPage<WithdrawalRow>(manager, {
    select: `SELECT ${WITHDRAWAL_COLUMNS} FROM withdrawals`,
    where,
    positionColumn: 'withdrawals.list_position',
    positionOf: (row) => row.list_position,
    cursor: WITHDRAWAL_LIST_CURSOR,
    after: filter.cursor,
    limit: filter.limit,
  });
}

/** Operators: withdrawals PENDING for longer than `olderThanSeconds`, oldest first (at most 500). */
export function listStuckWithdrawals(manager: EntityManager, olderThanSeconds: number): Promise<WithdrawalRow[]> {
  return manager.query(
    `SELECT ${WITHDRAWAL_COLUMNS} FROM withdrawals WHERE status = 'PENDING' AND created_at < now() - make_interval(secs => $1) ORDER BY list_position LIMIT 500`,
    [olderThanSeconds],
  );
}

export function withdrawalToView(withdrawal: ExistingWithdrawal): WithdrawalView {
  return {
    order_id: withdrawal.orderId,
    status: withdrawal.status,
    amount: formatAmountMinor(withdrawal.amountMinor, withdrawal.balanceAsset),
    network_fee: formatAmountMinor(withdrawal.networkFeeMinor, withdrawal.balanceAsset),
    currency: withdrawal.currency,
    network: withdrawal.network,
    address: withdrawal.address,
    transaction_hash: withdrawal.transactionHash,
    failure_reason: withdrawal.failureReason,
    metadata: withdrawal.metadata,
    created_at: withdrawal.createdAt,
    updated_at: withdrawal.updatedAt,
  };
}

/** The same object from the projection row (reads). */
export function rowToView(row: WithdrawalRow): WithdrawalView {
  return {
    order_id: row.order_id,
    status: row.status,
    amount: formatAmountMinor(BigInt(row.amount_minor), row.balance_asset),
    network_fee: formatAmountMinor(BigInt(row.network_fee_minor), row.balance_asset),
    currency: row.currency,
    network: row.network,
    address: row.address,
    transaction_hash: row.transaction_hash,
    failure_reason: row.failure_reason,
    metadata: row.metadata,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

export function rowToBackofficeView(row: WithdrawalRow): BackofficeWithdrawalView {
  return {
    ...rowToView(row),
    merchant_id: row.merchant_id,
    send_progress: row.send_progress,
    send_attempts: row.send_attempts,
    reconciliation: reconciliationToView(row.reconciliation),
  };
}

/** A reconciliation's evidence as operators read it. */
export function reconciliationToView(evidence: ReconciliationEvidence | null): ReconciliationView | null {
  if (evidence === null) return null;
  const { answer } = evidence;
  const networkAnswer: ReconciliationView['network_answer'] =
    answer.status === 'completed'
      ? { status: 'completed', transaction_hash: answer.transactionHash }
      : answer.status === 'pending'
        ? { status: 'pending' }
        : { status: answer.status, reason: answer.reason };
  return { asked_by: evidence.operatorId, asked_at: evidence.askedAt, idempotency_key: evidence.idempotencyKey, network_answer: networkAnswer };
}
