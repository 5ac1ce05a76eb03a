import type { PaymentOrderExternalEventData } from '@mp/contracts-payments';
import type { DisputedOrderFacts } from '@mp/disputes-domain';
import type { EntityManager } from 'typeorm';

/** Keeps the facts of an order the dispute rules need; an event older than the row changes nothing. */
export async function saveOrderFacts(manager: EntityManager, data: PaymentOrderExternalEventData): Promise<void> {
  await manager.query(
    `INSERT INTO dispute_orders (merchant_id, order_id, direction, status, amount_minor, currency, agent_id, created_at, order_version)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
     ON CONFLICT (merchant_id, order_id) DO UPDATE SET
       status = EXCLUDED.status, amount_minor = EXCLUDED.amount_minor, agent_id = EXCLUDED.agent_id, order_version = EXCLUDED.order_version
     WHERE dispute_orders.order_version < EXCLUDED.order_version`,
    [data.merchantId, data.orderId, data.direction, data.status, data.amountMinor, data.currency, data.agentId, data.order.created_at, data.version],
  );
}

export async function findOrderFacts(manager: EntityManager, merchantId: string, orderId: string): Promise<DisputedOrderFacts | null> {
  const rows: Array<{ direction: 'incoming' | 'outgoing'; amount_minor: string; currency: string; agent_id: string | null; created_at: Date }> = await manager.query(
    `SELECT direction, amount_minor, currency, agent_id, created_at FROM dispute_orders WHERE merchant_id = $1 AND order_id = $2`,
    [merchantId, orderId],
  );
  const row = rows[0];
  if (!row) return null;
  return { direction: row.direction, createdAt: row.created_at.toISOString(), agentId: row.agent_id, amountMinor: BigInt(row.amount_minor), currency: row.currency };
}
