import type { PaymentOrderView } from '@mp/contracts-payments';
import type { ExistingPaymentOrder } from '@mp/payments-domain';
import { formatAmountMinor } from '@mp/shared-util-money';
import type { EntityManager } from 'typeorm';

interface PaymentOrderRow {
  merchant_id: string;
  order_id: string;
  direction: 'incoming' | 'outgoing';
  status: ExistingPaymentOrder['status'];
  amount_minor: string;
  currency: string;
  country: string;
  callback_url: string;
  payer_page_token: string | null;
  created_at: Date;
  updated_at: Date;
}

/** Writes the order's current state; a row already at a later stream version is left alone. */
export async function saveOrderProjection(manager: EntityManager, order: ExistingPaymentOrder, streamVersion: number): Promise<void> {
  await manager.query(
    `INSERT INTO payment_orders (merchant_id, order_id, direction, status, amount_minor, currency, country, callback_url,
                                 payer_page_token, created_at, updated_at, stream_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
     ON CONFLICT (merchant_id, order_id) DO UPDATE SET
       status = EXCLUDED.status, updated_at = EXCLUDED.updated_at, stream_version = EXCLUDED.stream_version
     WHERE payment_orders.stream_version < EXCLUDED.stream_version`,
    [
      order.merchantId, order.orderId, order.direction, order.status, order.amountMinor.toString(), order.currency, order.country,
      order.callbackUrl, order.payerPageToken, order.createdAt, order.updatedAt, streamVersion,
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

/** The state object merchants see, built from a projection row or from the aggregate. */
export function toPaymentOrderView(
  order: Pick<ExistingPaymentOrder, 'orderId' | 'direction' | 'status' | 'amountMinor' | 'currency' | 'country' | 'callbackUrl' | 'payerPageToken' | 'createdAt' | 'updatedAt'>,
  payerPageBaseUrl: string,
): PaymentOrderView {
  return {
    order_id: order.orderId,
    direction: order.direction,
    status: order.status,
    amount: formatAmountMinor(order.amountMinor, order.currency),
    currency: order.currency,
    country: order.country,
    callback_url: order.callbackUrl,
    ...(order.direction === 'incoming' && order.payerPageToken ? { redirect_url: `${payerPageBaseUrl}/pay/${order.payerPageToken}` } : {}),
    created_at: new Date(order.createdAt).toISOString(),
    updated_at: new Date(order.updatedAt).toISOString(),
  };
}

export function rowToView(row: PaymentOrderRow, payerPageBaseUrl: string): PaymentOrderView {
  return toPaymentOrderView(
    {
      orderId: row.order_id,
      direction: row.direction,
      status: row.status,
      amountMinor: BigInt(row.amount_minor),
      currency: row.currency,
      country: row.country,
      callbackUrl: row.callback_url,
      payerPageToken: row.payer_page_token,
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    },
    payerPageBaseUrl,
  );
}
