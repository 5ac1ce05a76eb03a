import { useCallback, useState } from 'react';
import { agentApi } from '../api/console-api';
import type { AgentOrder } from '../api/types';
import type { RouteDefinition } from '../app/routes';
import { DateTime, Dialog, Empty, ErrorAlert, LoadState, Money, Pager, useAction, useCursorPages, useLoad } from '../app/components';
import { Link } from '../app/router';
import { pathFor } from '../lib/route-match';
import { StatusBadge } from './status';

const AGENT_ORDER_PAGE = '/agent/orders/:merchantId/:orderId';

type Pending = { kind: 'decline' | 'complete'; order: AgentOrder } | null;

/** The agent's queue: its orders (assigned) and the payouts it could take (available). Phone first: cards, not wide tables. */
function QueueView() {
  const [scope, setScope] = useState<'assigned' | 'available'>('assigned');
  const pages = useCursorPages(scope);
  const orders = useLoad(() => agentApi.listOrders(scope, pages.cursor), [scope, pages.cursor]);
  const action = useAction();
  const [pending, setPending] = useState<Pending>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const close = useCallback(() => setPending(null), []);

  const act = async (label: string, run: () => Promise<AgentOrder>) => {
    setNotice(null);
    const order = await action.run(run);
    if (order) {
      setNotice(`${label}: order ${order.order_id} is now ${order.status}.`);
      setPending(null);
      orders.reload();
    }
  };

  return (
    <>
      <h1>Queue</h1>
      <div className="segmented" role="group" aria-label="Which orders">
        <button type="button" aria-pressed={scope === 'assigned'} onClick={() => setScope('assigned')}>
          My orders
        </button>
        <button type="button" aria-pressed={scope === 'available'} onClick={() => setScope('available')}>
          Payouts to take
        </button>
      </div>
      {action.error && !pending && <ErrorAlert error={action.error} />}
      {notice && <p role="status">{notice}</p>}
      <LoadState loaded={orders}>
        {(page) => (
          <>
            <table className="cards">
              <caption>{scope === 'assigned' ? 'Your orders' : 'Payouts you could take'}</caption>
              <thead>
                <tr>
                  <th scope="col">Order</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Status</th>
                  <th scope="col">Created</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {page.data.map((order) => (
                  <tr key={`${order.merchant_id}/${order.order_id}`}>
                    <td data-label="Order">
                      <Link to={pathFor(AGENT_ORDER_PAGE, { merchantId: order.merchant_id, orderId: order.order_id })}>{order.order_id}</Link>
                      <span className="muted">
                        {' '}
                        {order.direction === 'incoming' ? 'pay-in' : 'payout'} · {order.method}
                      </span>
                    </td>
                    <td data-label="Amount">
                      <Money amount={order.amount} currency={order.currency} />
                    </td>
                    <td data-label="Status">
                      <StatusBadge status={order.status} />
                      {order.sub_status ? <span className="muted"> {order.sub_status}</span> : null}
                    </td>
                    <td data-label="Created">
                      <DateTime iso={order.created_at} />
                    </td>
                    <td data-label="Actions">
                      <div className="actions">
                        {scope === 'available' && (
                          <button type="button" disabled={action.busy} onClick={() => act('Taken', () => agentApi.take(order))}>
                            Take
                          </button>
                        )}
                        {scope === 'assigned' && order.status === 'PENDING' && order.direction === 'incoming' && (
                          <>
                            <button type="button" disabled={action.busy} onClick={() => act('Confirmed', () => agentApi.confirm(order))}>
                              Confirm
                            </button>
                            <button
                              type="button"
                              disabled={action.busy}
                              onClick={() => {
                                action.clearError();
                                setPending({ kind: 'decline', order });
                              }}
                            >
                              Decline
                            </button>
                          </>
                        )}
                        {scope === 'assigned' && order.status === 'PENDING' && order.direction === 'outgoing' && (
                          <button
                            type="button"
                            disabled={action.busy}
                            onClick={() => {
                              action.clearError();
                              setPending({ kind: 'complete', order });
                            }}
                          >
                            Complete
                          </button>
                        )}
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {page.data.length === 0 && <Empty>{scope === 'assigned' ? 'No orders are waiting for you.' : 'No payouts are waiting to be taken.'}</Empty>}
            <Pager pages={pages} hasMore={page.has_more} nextCursor={page.next_cursor} />
          </>
        )}
      </LoadState>
      {pending?.kind === 'decline' && (
        <DeclineDialog
          order={pending.order}
          busy={action.busy}
          error={action.error}
          onClose={close}
          onDecline={(reason) => act('Declined', () => agentApi.decline(pending.order, reason))}
        />
      )}
      {pending?.kind === 'complete' && (
        <CompleteDialog
          order={pending.order}
          busy={action.busy}
          error={action.error}
          onClose={close}
          onComplete={(file) =>
            act('Completed', async () => {
              const receipt = await agentApi.uploadReceipt(pending.order, file);
              return agentApi.complete(pending.order, receipt.receipt_id);
            })
          }
        />
      )}
    </>
  );
}

function DeclineDialog({
  order,
  busy,
  error,
  onClose,
  onDecline,
}: {
  order: AgentOrder;
  busy: boolean;
  error: ReturnType<typeof useAction>['error'];
  onClose: () => void;
  onDecline: (reason: string) => void;
}) {
  const [reason, setReason] = useState('');
  return (
    <Dialog title={`Decline order ${order.order_id}`} onClose={onClose}>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          onDecline(reason.trim());
        }}
      >
        <div className="field">
          <label htmlFor="decline-reason">Reason</label>
          <input id="decline-reason" value={reason} required onChange={(event) => setReason(event.target.value)} />
        </div>
        {error && <ErrorAlert error={error} />}
        <div className="actions">
          <button type="submit" className="danger" disabled={busy || reason.trim() === ''}>
            Decline order
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function CompleteDialog({
  order,
  busy,
  error,
  onClose,
  onComplete,
}: {
  order: AgentOrder;
  busy: boolean;
  error: ReturnType<typeof useAction>['error'];
  onClose: () => void;
  onComplete: (file: File) => void;
}) {
  const [file, setFile] = useState<File | null>(null);
  return (
    <Dialog title={`Complete payout ${order.order_id}`} onClose={onClose}>
      <p>
        Pay <Money amount={order.amount} currency={order.currency} /> to account {order.account_number ?? '—'}, then upload the transfer receipt (PDF, PNG or
        JPEG, at most 5 MiB).
      </p>
      <form
        className="form"
        onSubmit={(event) => {
          event.preventDefault();
          if (file) onComplete(file);
        }}
      >
        <div className="field">
          <label htmlFor="receipt-file">Receipt file</label>
          <input
            id="receipt-file"
            type="file"
            accept="application/pdf,image/png,image/jpeg"
            required
            onChange={(event) => setFile(event.target.files?.[0] ?? null)}
          />
        </div>
        {error && <ErrorAlert error={error} />}
        <div className="actions">
          <button type="submit" disabled={busy || !file}>
            Upload and complete
          </button>
          <button type="button" onClick={onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function AgentOrderView({ merchantId, orderId }: { merchantId: string; orderId: string }) {
  const order = useLoad(() => agentApi.order(merchantId, orderId), [merchantId, orderId]);
  return (
    <>
      <h1>Order {orderId}</h1>
      <p>
        <Link to="/agent/queue">Back to the queue</Link>
      </p>
      <LoadState loaded={order}>
        {(data) => (
          <>
            <dl className="facts">
              <dt>Merchant</dt>
              <dd>
                <code>{data.merchant_id}</code>
              </dd>
              <dt>Direction</dt>
              <dd>{data.direction === 'incoming' ? 'pay-in' : 'payout'}</dd>
              <dt>Status</dt>
              <dd>
                <StatusBadge status={data.status} />
                {data.sub_status ? ` ${data.sub_status}` : ''}
              </dd>
              <dt>Amount</dt>
              <dd>
                <Money amount={data.amount} currency={data.currency} />
              </dd>
              <dt>Method</dt>
              <dd>
                {data.method} ({data.country})
              </dd>
              {data.account_number && (
                <>
                  <dt>Recipient account</dt>
                  <dd>{data.account_number}</dd>
                </>
              )}
              <dt>Created</dt>
              <dd>
                <DateTime iso={data.created_at} />
              </dd>
              <dt>Expires</dt>
              <dd>
                <DateTime iso={data.expires_at} />
              </dd>
              {data.failure_reason && (
                <>
                  <dt>Failure reason</dt>
                  <dd>{data.failure_reason}</dd>
                </>
              )}
            </dl>
            <h2>Receipts</h2>
            {data.receipts.length === 0 ? (
              <Empty>No receipts uploaded.</Empty>
            ) : (
              <ul>
                {data.receipts.map((receipt) => (
                  <li key={receipt.receipt_id}>
                    {receipt.file_name} ({receipt.size_bytes} bytes), <DateTime iso={receipt.uploaded_at} />
                  </li>
                ))}
              </ul>
            )}
          </>
        )}
      </LoadState>
    </>
  );
}

export const agentRoutes: RouteDefinition[] = [
  { pattern: '/agent/queue', navLabel: 'Queue', render: () => <QueueView /> },
  { pattern: AGENT_ORDER_PAGE, render: (params) => <AgentOrderView merchantId={params['merchantId'] ?? ''} orderId={params['orderId'] ?? ''} /> },
];
