import { useEffect, useState } from 'react';
import { operatorApi } from '../../api/console-api';
import type { Dispute } from '../../api/types';
import { DateTime, Empty, ErrorAlert, Form, LoadState, Money, TextField, useAction, useLoad } from '../../app/components';
import { Link } from '../../app/router';
import { StatusBadge } from '../status';

/** One dispute: the merchant's claim, the receipt and the operator's review. */
export function OperatorDisputeView({ merchantId, disputeId }: { merchantId: string; disputeId: string }) {
  const [reason, setReason] = useState('');
  const [reviewed, setReviewed] = useState<Dispute | null>(null);
  const action = useAction();
  const review = async (decision: 'ACCEPTED' | 'REJECTED') => {
    const answer = await action.run(() => operatorApi.reviewDispute(merchantId, disputeId, decision, reason.trim()));
    if (answer) setReviewed(answer);
  };
  return (
    <>
      <h1>Dispute {disputeId}</h1>
      <p>
        <Link to="/operator/disputes">Back to disputes</Link> · Merchant <code>{merchantId}</code>
      </p>
      <DisputeFacts merchantId={merchantId} disputeId={disputeId} reviewed={reviewed} />
      <h2>Receipt</h2>
      <ReceiptPreview merchantId={merchantId} disputeId={disputeId} />
      <h2>Review</h2>
      {reviewed ? (
        <div role="status">
          <p>
            Dispute {reviewed.dispute_id} of order {reviewed.order_id}: <StatusBadge status={reviewed.status} />
            {reviewed.review?.settled_amount ? (
              <>
                {' '}
                settled at <Money amount={reviewed.review.settled_amount} currency={reviewed.currency} />
              </>
            ) : null}
          </p>
        </div>
      ) : (
        <Form label="Review" onSubmit={() => review('ACCEPTED')}>
          <TextField label="Reason" value={reason} onChange={setReason} />
          {action.error && <ErrorAlert error={action.error} />}
          <div className="actions">
            <button type="submit" disabled={action.busy}>
              Accept
            </button>
            <button type="button" className="danger" disabled={action.busy} onClick={() => review('REJECTED')}>
              Reject
            </button>
          </div>
        </Form>
      )}
    </>
  );
}

function ReceiptPreview({ merchantId, disputeId }: { merchantId: string; disputeId: string }) {
  const receipt = useLoad(() => operatorApi.disputeReceipt(merchantId, disputeId), [merchantId, disputeId]);
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    if (receipt.state !== 'ready') return undefined;
    const objectUrl = URL.createObjectURL(receipt.data.blob);
    setUrl(objectUrl);
    return () => URL.revokeObjectURL(objectUrl);
  }, [receipt]);
  if (receipt.state === 'error' && receipt.error.status === 404) return <Empty>No receipt was attached to this dispute.</Empty>;
  return (
    <LoadState loaded={receipt}>
      {(file) => (
        <>
          {url && file.contentType.startsWith('image/') && (
            <img src={url} alt={`Receipt ${file.fileName ?? ''} attached to dispute ${disputeId}`} className="receipt" />
          )}
          {url && (
            <p>
              <a href={url} download={file.fileName ?? `receipt-${disputeId}`}>
                Download receipt
              </a>
            </p>
          )}
        </>
      )}
    </LoadState>
  );
}

/** What the merchant claims: the order, the amount and comment, the status and when the review is due. */
function DisputeFacts({ merchantId, disputeId, reviewed }: { merchantId: string; disputeId: string; reviewed: Dispute | null }) {
  const dispute = useLoad(() => operatorApi.dispute(merchantId, disputeId), [merchantId, disputeId, reviewed]);
  return (
    <LoadState loaded={dispute}>
      {(facts) => (
        <dl className="facts">
          <dt>Status</dt>
          <dd>
            <StatusBadge status={facts.status} />
          </dd>
          <dt>Order</dt>
          <dd>
            <Link to={`/operator/orders/${encodeURIComponent(merchantId)}/${encodeURIComponent(facts.order_id)}`}>{facts.order_id}</Link> (its timeline)
          </dd>
          <dt>Amount claimed</dt>
          <dd>{facts.amount === null ? 'the order amount' : <Money amount={facts.amount} currency={facts.currency} />}</dd>
          <dt>Merchant's comment</dt>
          <dd>{facts.comment ?? '—'}</dd>
          <dt>Opened</dt>
          <dd>
            <DateTime iso={facts.created_at} />
          </dd>
          <dt>Review due</dt>
          <dd>
            <DateTime iso={facts.review_deadline} />
          </dd>
        </dl>
      )}
    </LoadState>
  );
}
