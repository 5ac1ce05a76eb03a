import { useState } from 'react';
import { operatorApi } from '../../api/console-api';
import type { QueuedDispute } from '../../api/types';
import { DateTime, Form, Money, TextField } from '../../app/components';
import { Link, navigate } from '../../app/router';
import { pathFor } from '../../lib/route-match';
import { StatusBadge, StatusFilteredList } from '../status';
import { DISPUTE_PAGE } from './paths';

/** The review queue across merchants (OPEN first by default), and a dispute found by its merchant and id. */
export function OperatorDisputesView() {
  const [merchantId, setMerchantId] = useState('');
  const [disputeId, setDisputeId] = useState('');
  return (
    <StatusFilteredList<QueuedDispute>
      title="Disputes"
      statuses={['OPEN', 'ACCEPTED', 'REJECTED']}
      load={operatorApi.disputeQueue}
      caption="Disputes of every merchant, newest first"
      headings={['Dispute', 'Merchant', 'Order', 'Status', 'Amount', 'Review due', 'Opened']}
      emptyText="No disputes."
      row={(dispute) => (
        <tr key={`${dispute.merchant_id}/${dispute.dispute_id}`}>
          <td>
            <Link to={pathFor(DISPUTE_PAGE, { merchantId: dispute.merchant_id, disputeId: dispute.dispute_id })}>{dispute.dispute_id}</Link>
          </td>
          <td>
            <code>{dispute.merchant_id}</code>
          </td>
          <td>{dispute.order_id}</td>
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
    >
      <Form
        label="Find a dispute"
        onSubmit={() =>
          merchantId.trim() && disputeId.trim() && navigate(pathFor(DISPUTE_PAGE, { merchantId: merchantId.trim(), disputeId: disputeId.trim() }))
        }
      >
        <TextField label="Merchant ID" value={merchantId} onChange={setMerchantId} required />
        <TextField label="Dispute ID" value={disputeId} onChange={setDisputeId} required />
        <button type="submit">Open dispute</button>
      </Form>
      <h2>Review queue</h2>
    </StatusFilteredList>
  );
}
