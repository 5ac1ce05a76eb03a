import { useState } from 'react';
import { merchantApi } from '../../api/console-api';
import { ORDER_STATUSES, type Direction, type Order } from '../../api/types';
import { DateTime, Empty, Form, LoadState, Money, Pager, SelectField, TextField, useCursorPages, useLoad } from '../../app/components';
import { Link } from '../../app/router';
import { pathFor } from '../../lib/route-match';
import { StatusBadge } from '../status';
import { ORDER_PAGE } from './paths';

export function OrdersView() {
  const [draft, setDraft] = useState({ direction: 'incoming' as Direction, status: '', orderId: '' });
  const [filters, setFilters] = useState(draft);
  const pages = useCursorPages(JSON.stringify(filters));
  const orders = useLoad(async () => {
    if (filters.orderId.trim() !== '') {
      // One order by its id (endpoint 3 searches both directions).
      const order = await merchantApi.order(filters.orderId.trim()).catch((error: unknown) => {
        if ((error as { apiError?: { code?: string } }).apiError?.code === 'ORDER_NOT_FOUND') return null;
        throw error;
      });
      return { data: order ? [order] : [], has_more: false, next_cursor: null };
    }
    return merchantApi.listOrders(filters.direction, { status: filters.status || undefined, cursor: pages.cursor, limit: 25 });
  }, [filters, pages.cursor]);
  return (
    <>
      <h1>Orders</h1>
      <Form label="Order filters" onSubmit={() => setFilters(draft)}>
        <div className="filters">
          <SelectField
            label="Direction"
            value={draft.direction}
            onChange={(value) => setDraft({ ...draft, direction: value as Direction })}
            options={[
              { value: 'incoming', label: 'Incoming (pay-ins)' },
              { value: 'outgoing', label: 'Outgoing (payouts)' },
            ]}
          />
          <SelectField
            label="Status"
            value={draft.status}
            onChange={(value) => setDraft({ ...draft, status: value })}
            options={[{ value: '', label: 'Any status' }, ...ORDER_STATUSES.map((status) => ({ value: status, label: status }))]}
          />
          <TextField label="Order ID" value={draft.orderId} onChange={(value) => setDraft({ ...draft, orderId: value })} />
          <button type="submit">Apply filters</button>
        </div>
      </Form>
      <LoadState loaded={orders}>
        {(page) => (
          <>
            <OrdersTable
              caption={
                filters.orderId
                  ? `Order ${filters.orderId}`
                  : `${filters.direction === 'incoming' ? 'Pay-ins' : 'Payouts'}${filters.status ? `, ${filters.status}` : ''}`
              }
              orders={page.data}
            />
            {page.data.length === 0 && <Empty>No orders match these filters.</Empty>}
            {!filters.orderId && <Pager pages={pages} hasMore={page.has_more} nextCursor={page.next_cursor} />}
          </>
        )}
      </LoadState>
    </>
  );
}

function OrdersTable({ caption, orders }: { caption: string; orders: Order[] }) {
  return (
    <div className="table-scroll">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Order</th>
            <th scope="col">Direction</th>
            <th scope="col">Status</th>
            <th scope="col">Amount</th>
            <th scope="col">Fee</th>
            <th scope="col">Method</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {orders.map((order) => (
            <tr key={order.order_id}>
              <td>
                <Link to={pathFor(ORDER_PAGE, { orderId: order.order_id })}>{order.order_id}</Link>
              </td>
              <td>{order.direction}</td>
              <td>
                <StatusBadge status={order.status} />
              </td>
              <td>
                <Money amount={order.amount} currency={order.currency} />
              </td>
              <td>
                <Money amount={order.fee} currency={order.currency} />
              </td>
              <td>{order.method}</td>
              <td>
                <DateTime iso={order.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
