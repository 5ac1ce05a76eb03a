import { findDisputeOfOrder, merchantApi } from '../../api/console-api';
import { DateTime, Empty, LoadState, Metadata, Money, useLoad } from '../../app/components';
import { Link } from '../../app/router';
import { orderTimeline } from '../../lib/timeline';
import { StatusBadge } from '../status';
import { DeliveriesTable } from './deliveries-table';

export function OrderView({ orderId }: { orderId: string }) {
  const loaded = useLoad(async () => {
    const [order, deliveries] = await Promise.all([merchantApi.order(orderId), merchantApi.listDeliveries({ order_id: orderId, limit: 100 })]);
    // Disputes are opened on pay-ins only.
    const dispute = order.direction === 'incoming' ? await findDisputeOfOrder(orderId) : null;
    return { order, deliveries: deliveries.data, dispute };
  }, [orderId]);
  return (
    <>
      <h1>Order {orderId}</h1>
      <p>
        <Link to="/merchant/orders">Back to orders</Link>
      </p>
      <LoadState loaded={loaded}>
        {({ order, deliveries, dispute }) => (
          <>
            <dl className="facts">
              <dt>Status</dt>
              <dd>
                <StatusBadge status={order.status} />
                {order.sub_status ? ` ${order.sub_status}` : ''}
              </dd>
              <dt>Amount</dt>
              <dd>
                <Money amount={order.amount} currency={order.currency} />
              </dd>
              <dt>Fee</dt>
              <dd>
                <Money amount={order.fee} currency={order.currency} />
              </dd>
              <dt>Method</dt>
              <dd>
                {order.method} ({order.country})
              </dd>
              <dt>Expires</dt>
              <dd>
                <DateTime iso={order.expires_at} />
              </dd>
              {order.failure_reason && (
                <>
                  <dt>Failure reason</dt>
                  <dd>{order.failure_reason}</dd>
                </>
              )}
              {order.return_url && (
                <>
                  <dt>Return URL</dt>
                  <dd>{order.return_url}</dd>
                </>
              )}
              <dt>Metadata</dt>
              <dd>
                <Metadata metadata={order.metadata} />
              </dd>
            </dl>
            <section aria-labelledby="timeline-heading">
              <h2 id="timeline-heading">Timeline</h2>
              <ol className="timeline">
                {orderTimeline(order, deliveries, dispute).map((event, index) => (
                  <li key={`${event.at}-${index}`}>
                    <DateTime iso={event.at} /> — {event.what}
                    {event.detail && <span className="muted"> ({event.detail})</span>}
                  </li>
                ))}
              </ol>
            </section>
            <DeliveriesTable caption="Callbacks" deliveries={deliveries} />
            {deliveries.length === 0 && <Empty>No callbacks for this order yet.</Empty>}
          </>
        )}
      </LoadState>
    </>
  );
}
