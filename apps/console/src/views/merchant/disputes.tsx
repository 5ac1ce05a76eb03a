import { merchantApi } from '../../api/console-api';
import type { Dispute } from '../../api/types';
import { DateTime, Money } from '../../app/components';
import { Link } from '../../app/router';
import { pathFor } from '../../lib/route-match';
import { StatusBadge, StatusFilteredList } from '../status';
import { ORDER_PAGE } from './paths';

export function DisputesView() {
  return (
    <StatusFilteredList<Dispute>
      title="Disputes"
      statuses={['OPEN', 'ACCEPTED', 'REJECTED']}
      load={merchantApi.listDisputes}
      caption="Disputes, newest first"
      headings={['Dispute', 'Order', 'Status', 'Amount', 'Review due', 'Opened']}
      emptyText="No disputes."
      row={(dispute) => (
        <tr key={dispute.dispute_id}>
          <td>{dispute.dispute_id}</td>
          <td>
            <Link to={pathFor(ORDER_PAGE, { orderId: dispute.order_id })}>{dispute.order_id}</Link>
          </td>
          <td>
            <StatusBadge status={dispute.status} />
          </td>
          <td>{dispute.amount === null ? 'order amount' : <Money amount={dispute.amount} currency={dispute.currency} />}</td>
          <td>
            <DateTime iso={dispute.review_deadline} />
          </td>
          <td>
            <DateTime iso={dispute.created_at} />
          </td>
        </tr>
      )}
    />
  );
}
