import type { BackofficeOrderView, PaymentOrderStatus, PaymentOrderView } from '@mp/contracts-payments';
import { maskAccountNumber, subStatusOf, type ExistingPaymentOrder } from '@mp/payments-domain';
import { formatAmountMinor } from '@mp/shared-util-money';
import { executeOrDefer } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';

export interface PaymentOrderRow {
  merchant_id: string;
  order_id: string;
  direction: 'incoming' | 'outgoing';
  status: PaymentOrderStatus;
  amount_minor: string;
  fee_minor: string;
  currency: string;
  country: string;
  method: string;
  callback_url: string;
  return_url: string | null;
  metadata: Record<string, string>;
  recipient_account_ref: string | null;
  account_number_last4: string | null;
  payer_page_token_hash: string | null;
  agent_id: string | null;
  payer_marked_paid_at: Date | null;
  failure_reason: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  list_position: string;
  /** A dispute on the order is OPEN: merchants see it PENDING (absent on rows built from a command's state). */
  open_dispute?: boolean;
}

/**
 * The columns of a PaymentOrderRow, named rather than `*`: a named text runs as a prepared
 * statement, and a prepared `*` would break in a running replica once a migration adds a column
 * (docs/decisions/prepared-statements.md).
 */
export const ORDER_ROW_COLUMNS = `merchant_id, order_id, direction, status, amount_minor, fee_minor, currency, country, method, callback_url, return_url, metadata,
  recipient_account_ref, account_number_last4, payer_page_token_hash, agent_id, payer_marked_paid_at, failure_reason, expires_at, created_at, updated_at,
  list_position, open_dispute`;

/**
 * Writes the order's current state; a row already at a later stream version is left alone. Part
 * of the command's one write statement when there is one (executeOrDefer).
 */
export async function saveOrderProjection(manager: EntityManager, order: ExistingPaymentOrder, streamVersion: number): Promise<void> {
  await executeOrDefer(manager, {
    sql: `INSERT INTO payment_orders (merchant_id, order_id, direction, status, amount_minor, fee_minor, currency, country, method, callback_url,
                                 recipient_account_ref, account_number_last4, payer_page_token_hash, agent_id, payer_marked_paid_at,
                                 failure_reason, expires_at, created_at, updated_at, stream_version, return_url, metadata)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
     ON CONFLICT (merchant_id, order_id) DO UPDATE SET
       status = EXCLUDED.status, amount_minor = EXCLUDED.amount_minor, fee_minor = EXCLUDED.fee_minor, agent_id = EXCLUDED.agent_id, payer_marked_paid_at = EXCLUDED.payer_marked_paid_at,
       failure_reason = EXCLUDED.failure_reason, updated_at = EXCLUDED.updated_at, stream_version = EXCLUDED.stream_version
     WHERE payment_orders.stream_version < EXCLUDED.stream_version
     RETURNING stream_version`,
    params: [
      order.merchantId,
      order.orderId,
      order.direction,
      order.status,
      order.amountMinor.toString(),
      order.feeMinor.toString(),
      order.currency,
      order.country,
      order.method,
      order.callbackUrl,
      order.recipientAccount?.reference ?? null,
      order.recipientAccount?.last4 ?? null,
      order.payerPageTokenHash,
      order.agentId,
      order.payerMarkedPaidAt,
      order.failureReason,
      order.expiresAt,
      order.createdAt,
      order.updatedAt,
      streamVersion,
      order.returnUrl,
      JSON.stringify(order.metadata),
    ],
  });
}

export async function findOrder(manager: EntityManager, merchantId: string, orderId: string): Promise<PaymentOrderRow | null> {
  const rows: PaymentOrderRow[] = await manager.query(`SELECT ${ORDER_ROW_COLUMNS} FROM payment_orders WHERE merchant_id = $1 AND order_id = $2`, [
    merchantId,
    orderId,
  ]);
  return rows[0] ?? null;
}

/** The order behind a payer page, found by the SHA-256 of its token (the token is stored nowhere). */
export async function findOrderByPayerPageTokenHash(manager: EntityManager, tokenHash: string): Promise<PaymentOrderRow | null> {
  const rows: PaymentOrderRow[] = await manager.query(`SELECT ${ORDER_ROW_COLUMNS} FROM payment_orders WHERE payer_page_token_hash = $1`, [tokenHash]);
  return rows[0] ?? null;
}

/** Where an incoming order's payer is sent; null where the link must not go (anything sent through Kafka). */
export type PayerPageUrlOf = ((merchantId: string, orderId: string, storedTokenHash: string | null) => string) | null;

/**
 * The state object merchants see. The recipient account is masked (`•••• 1234`); the full
 * number is only ever revealed to the agent the payout is assigned to.
 */
export function rowToView(row: PaymentOrderRow, payerPageUrlOf: PayerPageUrlOf): PaymentOrderView {
  const status = reportedStatus(row);
  return {
    order_id: row.order_id,
    direction: row.direction,
    status,
    sub_status: subStatusOf({ status, agentId: row.agent_id, payerMarkedPaidAt: row.payer_marked_paid_at?.toISOString() ?? null }),
    amount: formatAmountMinor(BigInt(row.amount_minor), row.currency),
    fee: formatAmountMinor(BigInt(row.fee_minor), row.currency),
    currency: row.currency,
    country: row.country,
    method: row.method,
    callback_url: row.callback_url,
    ...(row.direction === 'incoming' && payerPageUrlOf ? { redirect_url: payerPageUrlOf(row.merchant_id, row.order_id, row.payer_page_token_hash) } : {}),
    ...(row.direction === 'incoming' ? { return_url: row.return_url } : {}),
    ...(row.direction === 'outgoing' && row.account_number_last4 !== null ? { account_number: maskAccountNumber(row.account_number_last4) } : {}),
    failure_reason: row.failure_reason,
    metadata: row.metadata,
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** spec 4.9.4: an order with an OPEN dispute is reported as PENDING until the dispute is reviewed. */
export function reportedStatus(row: Pick<PaymentOrderRow, 'status' | 'open_dispute'>): PaymentOrderStatus {
  return row.open_dispute ? 'PENDING' : row.status;
}

/** The same SQL expression for list filters, so `status=PENDING` finds disputed orders and `status=FAILED` does not. */
export const REPORTED_STATUS_SQL = `(CASE WHEN open_dispute THEN 'PENDING' ELSE status END)`;

/** Applies a dispute's state change to its order's overlay; an older dispute event changes nothing. */
export async function setOpenDispute(manager: EntityManager, merchantId: string, orderId: string, open: boolean, disputeVersion: number): Promise<void> {
  await manager.query(`UPDATE payment_orders SET open_dispute = $3, dispute_version = $4 WHERE merchant_id = $1 AND order_id = $2 AND dispute_version < $4`, [
    merchantId,
    orderId,
    open,
    disputeVersion,
  ]);
}

/** A payout's receipts as agents and operators see them, from the order's state (a pay-in has none). */
export function receiptViewsOf(order: ExistingPaymentOrder): BackofficeOrderView['receipts'] {
  if (order.direction !== 'outgoing') return [];
  return order.receipts.map((receipt) => ({
    receipt_id: receipt.receiptId,
    file_name: receipt.fileName,
    content_type: receipt.contentType,
    size_bytes: receipt.sizeBytes,
    uploaded_at: receipt.uploadedAt,
  }));
}

/** The same order for agents and operators, with who owns and works it and its receipts. */
export function rowToBackofficeView(row: PaymentOrderRow, payerPageUrlOf: PayerPageUrlOf, receipts: BackofficeOrderView['receipts']): BackofficeOrderView {
  return { ...rowToView(row, payerPageUrlOf), merchant_id: row.merchant_id, agent_id: row.agent_id, receipts };
}

/** A row as the decider's state, to build views straight from a command's result. */
export function orderToRow(order: ExistingPaymentOrder, listPosition = '0'): PaymentOrderRow {
  return {
    merchant_id: order.merchantId,
    order_id: order.orderId,
    direction: order.direction,
    status: order.status,
    amount_minor: order.amountMinor.toString(),
    fee_minor: order.feeMinor.toString(),
    currency: order.currency,
    country: order.country,
    method: order.method,
    callback_url: order.callbackUrl,
    return_url: order.returnUrl,
    metadata: order.metadata,
    recipient_account_ref: order.recipientAccount?.reference ?? null,
    account_number_last4: order.recipientAccount?.last4 ?? null,
    payer_page_token_hash: order.payerPageTokenHash,
    agent_id: order.agentId,
    payer_marked_paid_at: order.payerMarkedPaidAt ? new Date(order.payerMarkedPaidAt) : null,
    failure_reason: order.failureReason,
    expires_at: new Date(order.expiresAt),
    created_at: new Date(order.createdAt),
    updated_at: new Date(order.updatedAt),
    list_position: listPosition,
  };
}
