import type { AgentOrderView, PaymentOrderStatus, PaymentOrderSubStatus, PaymentOrderView } from '@mp/contracts-payments';
import type { ExistingPaymentOrder } from '@mp/payments-domain';
import { formatAmountMinor } from '@mp/shared-util-money';
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
  account_number: string | null;
  payer_page_token: string | null;
  agent_id: string | null;
  payer_marked_paid_at: Date | null;
  failure_reason: string | null;
  expires_at: Date;
  created_at: Date;
  updated_at: Date;
  list_position: string;
}

/** Writes the order's current state; a row already at a later stream version is left alone. */
export async function saveOrderProjection(manager: EntityManager, order: ExistingPaymentOrder, streamVersion: number): Promise<void> {
  await manager.query(
    `INSERT INTO payment_orders (merchant_id, order_id, direction, status, amount_minor, fee_minor, currency, country, method, callback_url,
                                 account_number, payer_page_token, agent_id, payer_marked_paid_at, failure_reason, expires_at,
                                 created_at, updated_at, stream_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
     ON CONFLICT (merchant_id, order_id) DO UPDATE SET
       status = EXCLUDED.status, agent_id = EXCLUDED.agent_id, payer_marked_paid_at = EXCLUDED.payer_marked_paid_at,
       failure_reason = EXCLUDED.failure_reason, updated_at = EXCLUDED.updated_at, stream_version = EXCLUDED.stream_version
     WHERE payment_orders.stream_version < EXCLUDED.stream_version`,
    [
      order.merchantId, order.orderId, order.direction, order.status, order.amountMinor.toString(), order.feeMinor.toString(), order.currency,
      order.country, order.method, order.callbackUrl, order.accountNumber, order.payerPageToken, order.agentId, order.payerMarkedPaidAt,
      order.failureReason, order.expiresAt, order.createdAt, order.updatedAt, streamVersion,
    ],
  );
}

export async function findOrder(manager: EntityManager, merchantId: string, orderId: string): Promise<PaymentOrderRow | null> {
  const rows: PaymentOrderRow[] = await manager.query(`SELECT * FROM payment_orders WHERE merchant_id = $1 AND order_id = $2`, [merchantId, orderId]);
  return rows[0] ?? null;
}

export async function findOrderByPayerPageToken(manager: EntityManager, token: string): Promise<PaymentOrderRow | null> {
  const rows: PaymentOrderRow[] = await manager.query(`SELECT * FROM payment_orders WHERE payer_page_token = $1`, [token]);
  return rows[0] ?? null;
}

function subStatusOf(row: Pick<PaymentOrderRow, 'status' | 'agent_id' | 'payer_marked_paid_at'>): PaymentOrderSubStatus {
  if (row.status !== 'PENDING') return null;
  if (row.payer_marked_paid_at) return 'payer_reported_paid';
  return row.agent_id ? 'agent_assigned' : 'awaiting_agent';
}

/** The state object merchants see. */
export function rowToView(row: PaymentOrderRow, payerPageBaseUrl: string): PaymentOrderView {
  return {
    order_id: row.order_id,
    direction: row.direction,
    status: row.status,
    sub_status: subStatusOf(row),
    amount: formatAmountMinor(BigInt(row.amount_minor), row.currency),
    fee: formatAmountMinor(BigInt(row.fee_minor), row.currency),
    currency: row.currency,
    country: row.country,
    method: row.method,
    callback_url: row.callback_url,
    ...(row.direction === 'incoming' && row.payer_page_token ? { redirect_url: `${payerPageBaseUrl}/pay/${row.payer_page_token}` } : {}),
    ...(row.direction === 'outgoing' && row.account_number ? { account_number: row.account_number } : {}),
    failure_reason: row.failure_reason,
    expires_at: row.expires_at.toISOString(),
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}

/** The same order for agents and operators, with who owns and works it and its receipts. */
export function rowToAgentView(row: PaymentOrderRow, payerPageBaseUrl: string, receipts: AgentOrderView['receipts']): AgentOrderView {
  return { ...rowToView(row, payerPageBaseUrl), merchant_id: row.merchant_id, agent_id: row.agent_id, receipts };
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
    account_number: order.accountNumber,
    payer_page_token: order.payerPageToken,
    agent_id: order.agentId,
    payer_marked_paid_at: order.payerMarkedPaidAt ? new Date(order.payerMarkedPaidAt) : null,
    failure_reason: order.failureReason,
    expires_at: new Date(order.expiresAt),
    created_at: new Date(order.createdAt),
    updated_at: new Date(order.updatedAt),
    list_position: listPosition,
  };
}
