import { useState } from 'react';
import { operatorApi } from '../../api/console-api';
import { DateTime, LoadState, Money, useLoad } from '../../app/components';
import { Link } from '../../app/router';
import { streamTimeline } from '../../lib/timeline';
import { StatusBadge } from '../status';

/**
 * Any order as it stood at any instant (docs/operations/as-of-reads.md): its timeline is every
 * event of its stream, and the state shown is the one after the chosen event, or at an instant
 * typed in; the back office folds the stream up to it.
 */
export function OperatorOrderView({ merchantId, orderId }: { merchantId: string; orderId: string }) {
  const [at, setAt] = useState(() => new Date().toISOString());
  const [typed, setTyped] = useState(at);
  const loaded = useLoad(() => operatorApi.orderAsOf(merchantId, orderId, at), [merchantId, orderId, at]);
  return (
    <>
      <h1>Order {orderId}</h1>
      <p>
        <Link to="/operator/merchants">Back to merchants</Link> · Merchant <code>{merchantId}</code>
      </p>
      <form
        className="inline-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (!Number.isNaN(Date.parse(typed))) setAt(new Date(typed).toISOString());
        }}
      >
        <label>
          State at (RFC 3339) <input value={typed} onChange={(event) => setTyped(event.target.value)} aria-label="State at" />
        </label>
        <button type="submit">Show</button>
      </form>
      <LoadState loaded={loaded}>
        {(read) => (
          <>
            <p>
              As of <DateTime iso={read.as_of} />: version {read.version}
              {read.recorded_at && (
                <>
                  {' '}
                  (last event <DateTime iso={read.recorded_at} />)
                </>
              )}
            </p>
            {read.state === null ? (
              <p>The order did not exist yet.</p>
            ) : (
              <dl className="facts">
                <dt>Status</dt>
                <dd>
                  <StatusBadge status={read.state.status} />
                  {read.state.sub_status ? ` ${read.state.sub_status}` : ''}
                </dd>
                <dt>Amount</dt>
                <dd>
                  <Money amount={read.state.amount} currency={read.state.currency} />
                </dd>
                <dt>Fee</dt>
                <dd>
                  <Money amount={read.state.fee} currency={read.state.currency} />
                </dd>
                <dt>Agent</dt>
                <dd>{read.state.agent_id ?? '—'}</dd>
                <dt>Updated</dt>
                <dd>
                  <DateTime iso={read.state.updated_at} />
                </dd>
                {read.state.failure_reason && (
                  <>
                    <dt>Failure reason</dt>
                    <dd>{read.state.failure_reason}</dd>
                  </>
                )}
              </dl>
            )}
            <section aria-labelledby="order-timeline-heading">
              <h2 id="order-timeline-heading">Timeline</h2>
              <ol className="timeline">
                {streamTimeline(read).map((event) => (
                  <li key={event.version} className={event.folded ? undefined : 'muted'}>
                    <DateTime iso={event.at} /> — {event.what}{' '}
                    <button
                      type="button"
                      onClick={() => {
                        setAt(event.at);
                        setTyped(event.at);
                      }}
                    >
                      State after this
                    </button>
                  </li>
                ))}
              </ol>
            </section>
          </>
        )}
      </LoadState>
    </>
  );
}
