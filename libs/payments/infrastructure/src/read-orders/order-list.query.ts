import type { PaymentOrderStatus } from '@mp/contracts-payments';
import { fetchNewestFirstPage, PositionCursor, SqlConditions, type NewestFirstPage } from '@mp/shared-data-access-postgres';
import type { EntityManager } from 'typeorm';
import { ORDER_ROW_COLUMNS, REPORTED_STATUS_SQL, type PaymentOrderRow } from '../persistence/payment-order.projection';

export interface OrderListFilter {
  merchantId?: string;
  direction?: 'incoming' | 'outgoing';
  agentId?: string;
  /** Unassigned payouts an agent could take, in these service areas. */
  availableFor?: Array<{ method: string; country: string; currency: string }>;
  status?: PaymentOrderStatus;
  createdFrom?: Date;
  createdTo?: Date;
  limit: number;
  cursor?: string;
}

export type OrderListPage = NewestFirstPage<PaymentOrderRow>;

const ORDER_LIST_CURSOR = new PositionCursor('p');

/**
 * Newest first, paged by an opaque cursor over the row's creation position. Positions only
 * grow, so orders created while a client pages appear before its first page, never inside
 * later pages: no duplicates and no gaps.
 */
export async function listOrders(manager: EntityManager, filter: OrderListFilter): Promise<OrderListPage> {
  const where = new SqlConditions();
  if (filter.merchantId !== undefined) where.add('merchant_id = ?', filter.merchantId);
  if (filter.direction !== undefined) where.add('direction = ?', filter.direction);
  if (filter.agentId !== undefined) where.add('agent_id = ?', filter.agentId);
  if (filter.availableFor !== undefined) {
    // Test-mode payouts are the sandbox agent's (SandboxAgent): no live agent's queue lists them.
    where.addLiteral(`agent_id IS NULL AND direction = 'outgoing' AND status = 'PENDING' AND merchant_id NOT LIKE 'test\\_%'`);
    where.add(
      `EXISTS (SELECT 1 FROM jsonb_array_elements(?::jsonb) area
                WHERE area->>'method' = method AND area->>'country' = country AND area->>'currency' = currency)`,
      JSON.stringify(filter.availableFor),
    );
  }
  if (filter.status !== undefined) where.add(`${REPORTED_STATUS_SQL} = ?`, filter.status);
  if (filter.createdFrom !== undefined) where.add('created_at >= ?', filter.createdFrom);
  if (filter.createdTo !== undefined) where.add('created_at <= ?', filter.createdTo);
  return fetchNewestFirstPage<PaymentOrderRow>(manager, {
    select: `SELECT ${ORDER_ROW_COLUMNS} FROM payment_orders`,
    where,
    positionColumn: 'payment_orders.list_position',
    positionOf: (row) => row.list_position,
    cursor: ORDER_LIST_CURSOR,
    after: filter.cursor,
    limit: filter.limit,
  });
}
