import type { PaymentOrderStatus } from '@mp/contracts-payments';
import { DomainError } from '@mp/shared-util-errors';
import type { EntityManager } from 'typeorm';
import { REPORTED_STATUS_SQL, type PaymentOrderRow } from '../persistence/payment-order.projection';

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

export interface OrderListPage {
  rows: PaymentOrderRow[];
  hasMore: boolean;
  nextCursor: string | null;
}

/**
 * Newest first, paged by an opaque cursor over the row's creation position. Positions only
 * grow, so orders created while a client pages appear before its first page, never inside
 * later pages: no duplicates and no gaps.
 */
export async function listOrders(manager: EntityManager, filter: OrderListFilter): Promise<OrderListPage> {
  const conditions: string[] = [];
  const values: unknown[] = [];
  const add = (sql: string, value: unknown) => {
    values.push(value);
    conditions.push(sql.replace('?', `$${values.length}`));
  };
  if (filter.merchantId !== undefined) add('merchant_id = ?', filter.merchantId);
  if (filter.direction !== undefined) add('direction = ?', filter.direction);
  if (filter.agentId !== undefined) add('agent_id = ?', filter.agentId);
  if (filter.availableFor !== undefined) {
    conditions.push(`agent_id IS NULL AND direction = 'outgoing' AND status = 'PENDING'`);
    add(
      `EXISTS (SELECT 1 FROM jsonb_array_elements(?::jsonb) area
                WHERE area->>'method' = method AND area->>'country' = country AND area->>'currency' = currency)`,
      JSON.stringify(filter.availableFor),
    );
  }
  if (filter.status !== undefined) add(`${REPORTED_STATUS_SQL} = ?`, filter.status);
  if (filter.createdFrom !== undefined) add('created_at >= ?', filter.createdFrom);
  if (filter.createdTo !== undefined) add('created_at <= ?', filter.createdTo);
  if (filter.cursor !== undefined) add('list_position < ?', decodeCursor(filter.cursor));
  values.push(filter.limit + 1);
  const rows: PaymentOrderRow[] = await manager.query(
    `SELECT * FROM payment_orders ${conditions.length ? `WHERE ${conditions.join(' AND ')}` : ''} ORDER BY list_position DESC LIMIT $${values.length}`,
    values,
  );
  const hasMore = rows.length > filter.limit;
  const page = rows.slice(0, filter.limit);
  return { rows: page, hasMore, nextCursor: hasMore ? encodeCursor(page[page.length - 1].list_position) : null };
}

function encodeCursor(listPosition: string): string {
  return Buffer.from(`p:${listPosition}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): string {
  const decoded = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^p:(\d{1,18})$/.exec(decoded);
  if (!match) throw new DomainError('VALIDATION_ERROR', 'The cursor is not one this API returned', [{ field: 'cursor', issue: 'is not valid' }]);
  return match[1];
}
