import type { PaymentOrderExternalEventData } from '@mp/contracts-payments';
import type { DisputedOrderFacts } from '@mp/disputes-domain';
import { executeOrDefer } from '@mp/shared-messaging';
import type { EntityManager } from 'typeorm';

/**
 * Keeps the facts of orders the dispute rules need, for a batch of order events in one
 * statement; an event older than the row changes nothing. Only each order's newest event in
 * the batch is written: the row keeps the highest version anyway, and one statement may not
 * update one row twice. Part of the intake's one write statement with its inbox claim
 * (executeOrDefer).
 */
export async function saveOrderFacts(manager: EntityManager, events: readonly PaymentOrderExternalEventData[]): Promise<void> {
  const newest = new Map<string, PaymentOrderExternalEventData>();
  for (const data of events) {
    const key = JSON.stringify([data.merchantId, data.orderId]);
    const held = newest.get(key);
    if (!held || held.version < data.version) newest.set(key, data);
  }
  if (newest.size === 0) return;
  const rows = [...newest.values()];
  const column = <T>(pick: (data: PaymentOrderExternalEventData) => T) => rows.map(pick);
  await executeOrDefer(manager, {
    sql: `INSERT INTO dispute_orders (merchant_id, order_id, direction, status, amount_minor, currency, agent_id, created_at, order_version)
     SELECT merchant_id, order_id, direction, status, amount_minor, currency, agent_id, created_at, order_version
       FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::bigint[], $6::text[], $7::text[], $8::timestamptz[], $9::int[])
         AS given (merchant_id, order_id, direction, status, amount_minor, currency, agent_id, created_at, order_version)
     ON CONFLICT (merchant_id, order_id) DO UPDATE SET
       status = EXCLUDED.status, amount_minor = EXCLUDED.amount_minor, agent_id = EXCLUDED.agent_id, order_version = EXCLUDED.order_version
     WHERE dispute_orders.order_version < EXCLUDED.order_version`,
    params: [
      column((data) => data.merchantId),
      column((data) => data.orderId),
      column((data) => data.direction),
      column((data) => data.status),
      column((data) => data.amountMinor),
      column((data) => data.currency),
      column((data) => data.agentId),
      column((data) => data.order.created_at),
      column((data) => data.version),
    ],
  });
}

export async function findOrderFacts(manager: EntityManager, merchantId: string, orderId: string): Promise<DisputedOrderFacts | null> {
  const rows: Array<{ direction: 'incoming' | 'outgoing'; amount_minor: string; currency: string; agent_id: string | null; created_at: Date }> =
    await manager.query(`SELECT direction, amount_minor, currency, agent_id, created_at FROM dispute_orders WHERE merchant_id = $1 AND order_id = $2`, [
      merchantId,
      orderId,
    ]);
  const row = rows[0];
  if (!row) return null;
  return {
    direction: row.direction,
    createdAt: row.created_at.toISOString(),
    agentId: row.agent_id,
    amountMinor: BigInt(row.amount_minor),
    currency: row.currency,
  };
}
