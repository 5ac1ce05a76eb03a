import { useState } from 'react';
import { merchantApi } from '../../api/console-api';
import type { Delivery } from '../../api/types';
import { DateTime, ErrorAlert, useAction } from '../../app/components';
import { Link } from '../../app/router';
import { pathFor } from '../../lib/route-match';
import { StatusBadge } from '../status';
import { ORDER_PAGE } from './paths';

/** An order's or the merchant's callbacks; with `onRedelivered`, each row can be sent again. */
export function DeliveriesTable({ caption, deliveries, onRedelivered }: { caption: string; deliveries: Delivery[]; onRedelivered?: () => void }) {
  const action = useAction();
  const [done, setDone] = useState<string | null>(null);
  const redeliver = async (delivery: Delivery) => {
    setDone(null);
    const answer = await action.run(() => merchantApi.redeliver(delivery.delivery_id));
    if (answer) {
      setDone(`Callback ${delivery.delivery_id} sent again.`);
      onRedelivered?.();
    }
  };
  return (
    <>
      {action.error && <ErrorAlert error={action.error} />}
      {done && <p role="status">{done}</p>}
      <div className="table-scroll">
        <table>
          <caption>{caption}</caption>
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Order</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last answer</th>
              <th scope="col">Created</th>
              {onRedelivered && <th scope="col">Action</th>}
            </tr>
          </thead>
          <tbody>
            {deliveries.map((delivery) => (
              <tr key={delivery.delivery_id}>
                <td>{delivery.event_type}</td>
                <td>{delivery.order_id ? <Link to={pathFor(ORDER_PAGE, { orderId: delivery.order_id })}>{delivery.order_id}</Link> : '—'}</td>
                <td>
                  <StatusBadge status={delivery.status} />
                </td>
                <td>{delivery.attempt_count}</td>
                <td>{delivery.last_response_code ?? '—'}</td>
                <td>
                  <DateTime iso={delivery.created_at} />
                </td>
                {onRedelivered && (
                  <td>
                    <button type="button" onClick={() => redeliver(delivery)} disabled={action.busy} aria-describedby={undefined}>
                      Redeliver
                    </button>
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
