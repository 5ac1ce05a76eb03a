import { useCallback, useMemo, useState, type ReactNode } from 'react';
import { findDisputeOfOrder, merchantApi, type ListFilters } from '../api/console-api';
import { ORDER_STATUSES, type Delivery, type Direction, type Dispute, type Order, type Page, type RotatedSecret, type Withdrawal } from '../api/types';
import type { RouteDefinition } from '../app/App';
import {
  ConfirmDialog,
  DateTime,
  Empty,
  ErrorAlert,
  Form,
  LoadState,
  Money,
  Pager,
  SecretDialog,
  SelectField,
  TextField,
  saveBlob,
  useAction,
  useCursorPages,
  useLoad,
} from '../app/components';
import { Link } from '../app/router';
import { dailySettlementChange } from '../lib/csv';
import { formatDateTime, lastUtcDays } from '../lib/dates';
import { pathFor } from '../lib/route-match';
import { orderTimeline } from '../lib/timeline';
import { SettlementChart } from './settlement-chart';

const ORDER_PAGE = '/merchant/orders/:orderId';
const CHART_DAYS = 14;

function BalancesView() {
  const balances = useLoad(() => merchantApi.balances(), []);
  return (
    <>
      <h1>Balances</h1>
      <LoadState loaded={balances}>
        {(data) => (
          <>
            <table>
              <caption>Settlement balances</caption>
              <thead>
                <tr>
                  <th scope="col">Currency</th>
                  <th scope="col">Available</th>
                  <th scope="col">Frozen</th>
                </tr>
              </thead>
              <tbody>
                {data.settlement.map((row) => (
                  <tr key={row.currency}>
                    <td>{row.currency}</td>
                    <td><Money amount={row.available} currency={row.currency} /></td>
                    <td><Money amount={row.frozen} currency={row.currency} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
            {data.settlement.length === 0 && <Empty>No settlement balance yet: one appears once money has moved in a currency.</Empty>}
            <table>
              <caption>Deposit balances</caption>
              <thead>
                <tr>
                  <th scope="col">Currency</th>
                  <th scope="col">Available</th>
                </tr>
              </thead>
              <tbody>
                {data.deposit.map((row) => (
                  <tr key={row.currency}>
                    <td>{row.currency}</td>
                    <td><Money amount={row.available} currency={row.currency} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
            {data.deposit.length === 0 && <Empty>No deposit yet.</Empty>}
            <SettlementSection currencies={data.settlement.map((row) => row.currency)} />
          </>
        )}
      </LoadState>
    </>
  );
}

function SettlementSection({ currencies }: { currencies: string[] }) {
  const [currency, setCurrency] = useState(currencies[0] ?? 'RUB');
  const days = useMemo(() => lastUtcDays(new Date(), CHART_DAYS), []);
  const series = useLoad(
    () =>
      // One report per UTC day (endpoint 9a), read in order: fourteen small requests.
      days.reduce<Promise<{ day: string; changeMinor: bigint }[]>>(
        async (previous, day) => {
          const points = await previous;
          const file = await merchantApi.reconciliationCsv(day, currency);
          return [...points, { day, changeMinor: dailySettlementChange(await file.blob.text()) }];
        },
        Promise.resolve([]),
      ),
    [currency, days],
  );
  return (
    <section aria-labelledby="settlement-heading">
      <h2 id="settlement-heading">Settlement over the last {CHART_DAYS} days</h2>
      {currencies.length > 1 && <SelectField label="Chart currency" value={currency} onChange={setCurrency} options={currencies.map((code) => ({ value: code, label: code }))} />}
      <LoadState loaded={series}>{(points) => <SettlementChart currency={currency} days={points} />}</LoadState>
    </section>
  );
}

function OrdersView() {
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
          <SelectField label="Direction" value={draft.direction} onChange={(value) => setDraft({ ...draft, direction: value as Direction })} options={[{ value: 'incoming', label: 'Incoming (pay-ins)' }, { value: 'outgoing', label: 'Outgoing (payouts)' }]} />
          <SelectField label="Status" value={draft.status} onChange={(value) => setDraft({ ...draft, status: value })} options={[{ value: '', label: 'Any status' }, ...ORDER_STATUSES.map((status) => ({ value: status, label: status }))]} />
          <TextField label="Order ID" value={draft.orderId} onChange={(value) => setDraft({ ...draft, orderId: value })} />
          <button type="submit">Apply filters</button>
        </div>
      </Form>
      <LoadState loaded={orders}>
        {(page) => (
          <>
            <OrdersTable caption={filters.orderId ? `Order ${filters.orderId}` : `${filters.direction === 'incoming' ? 'Pay-ins' : 'Payouts'}${filters.status ? `, ${filters.status}` : ''}`} orders={page.data} />
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
              <td><Link to={pathFor(ORDER_PAGE, { orderId: order.order_id })}>{order.order_id}</Link></td>
              <td>{order.direction}</td>
              <td><StatusBadge status={order.status} /></td>
              <td><Money amount={order.amount} currency={order.currency} /></td>
              <td><Money amount={order.fee} currency={order.currency} /></td>
              <td>{order.method}</td>
              <td><DateTime iso={order.created_at} /></td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge badge-${status.toLowerCase()}`}>{status}</span>;
}

function OrderView({ orderId }: { orderId: string }) {
  const loaded = useLoad(async () => {
    const [order, deliveries] = await Promise.all([merchantApi.order(orderId), merchantApi.listDeliveries({ order_id: orderId, limit: 100 })]);
    // Disputes are opened on pay-ins only.
    const dispute = order.direction === 'incoming' ? await findDisputeOfOrder(orderId) : null;
    return { order, deliveries: deliveries.data, dispute };
  }, [orderId]);
  return (
    <>
      <h1>Order {orderId}</h1>
      <p><Link to="/merchant/orders">Back to orders</Link></p>
      <LoadState loaded={loaded}>
        {({ order, deliveries, dispute }) => (
          <>
            <dl className="facts">
              <dt>Status</dt><dd><StatusBadge status={order.status} />{order.sub_status ? ` ${order.sub_status}` : ''}</dd>
              <dt>Amount</dt><dd><Money amount={order.amount} currency={order.currency} /></dd>
              <dt>Fee</dt><dd><Money amount={order.fee} currency={order.currency} /></dd>
              <dt>Method</dt><dd>{order.method} ({order.country})</dd>
              <dt>Expires</dt><dd><DateTime iso={order.expires_at} /></dd>
              {order.failure_reason && (<><dt>Failure reason</dt><dd>{order.failure_reason}</dd></>)}
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

function DeliveriesTable({ caption, deliveries, onRedelivered }: { caption: string; deliveries: Delivery[]; onRedelivered?: () => void }) {
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
                <td><StatusBadge status={delivery.status} /></td>
                <td>{delivery.attempt_count}</td>
                <td>{delivery.last_response_code ?? '—'}</td>
                <td><DateTime iso={delivery.created_at} /></td>
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

function WebhooksView() {
  const pages = useCursorPages('deliveries');
  const deliveries = useLoad(() => merchantApi.listDeliveries({ cursor: pages.cursor, limit: 25 }), [pages.cursor]);
  const endpoints = useLoad(() => merchantApi.disabledEndpoints(), []);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const enable = async (url: string) => {
    const answer = await action.run(() => merchantApi.enableEndpoint(url));
    if (answer) {
      setNotice(`${answer.url} is on again; ${answer.resumed_deliveries} kept callback(s) sent.`);
      endpoints.reload();
      deliveries.reload();
    }
  };
  const sendTest = async () => {
    const answer = await action.run(() => merchantApi.sendTestWebhook());
    if (answer) {
      setNotice(`Test callback ${answer.id} sent to your default callback URL.`);
      deliveries.reload();
    }
  };
  return (
    <>
      <h1>Webhook deliveries</h1>
      {action.error && <ErrorAlert error={action.error} />}
      {notice && <p role="status">{notice}</p>}
      <p><button type="button" onClick={sendTest} disabled={action.busy}>Send a test callback</button></p>
      <LoadState loaded={deliveries}>
        {(page) => (
          <>
            <DeliveriesTable caption="Callbacks, newest first" deliveries={page.data} onRedelivered={deliveries.reload} />
            {page.data.length === 0 && <Empty>No callbacks have been sent yet.</Empty>}
            <Pager pages={pages} hasMore={page.has_more} nextCursor={page.next_cursor} />
          </>
        )}
      </LoadState>
      <h2>Disabled endpoints</h2>
      <LoadState loaded={endpoints}>
        {(answer) =>
          answer.data.length === 0 ? (
            <Empty>No endpoint is disabled.</Empty>
          ) : (
            <table>
              <caption>Disabled endpoints</caption>
              <thead>
                <tr><th scope="col">URL</th><th scope="col">Since</th><th scope="col">Why</th><th scope="col">Kept callbacks</th><th scope="col">Action</th></tr>
              </thead>
              <tbody>
                {answer.data.map((endpoint) => (
                  <tr key={endpoint.url}>
                    <td className="wrap">{endpoint.url}</td>
                    <td><DateTime iso={endpoint.disabled_at} /></td>
                    <td>{endpoint.reason}</td>
                    <td>{endpoint.parked_deliveries}</td>
                    <td><button type="button" onClick={() => enable(endpoint.url)} disabled={action.busy}>Enable</button></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </LoadState>
    </>
  );
}

/**
 * A merchant list with a status filter and cursor pages (endpoints 12 and 15): the view's title,
 * the statuses, how to read a page and how to draw its rows.
 */
export function StatusFilteredList<T>(props: {
  title: string;
  statuses: readonly string[];
  /** Shown between the heading and the list (a view's forms). */
  children?: ReactNode;
  load: (filters: ListFilters) => Promise<Page<T>>;
  caption: string;
  headings: string[];
  row: (item: T) => ReactNode;
  emptyText: string;
}) {
  const [status, setStatus] = useState('');
  const pages = useCursorPages(status);
  const list = useLoad(() => props.load({ status: status || undefined, cursor: pages.cursor, limit: 25 }), [status, pages.cursor]);
  return (
    <>
      <h1>{props.title}</h1>
      {props.children}
      <SelectField label="Status" value={status} onChange={setStatus} options={[{ value: '', label: 'Any status' }, ...props.statuses.map((value) => ({ value, label: value }))]} />
      <LoadState loaded={list}>
        {(page) => (
          <>
            <div className="table-scroll">
              <table>
                <caption>{props.caption}</caption>
                <thead>
                  <tr>{props.headings.map((heading) => <th scope="col" key={heading}>{heading}</th>)}</tr>
                </thead>
                <tbody>{page.data.map(props.row)}</tbody>
              </table>
            </div>
            {page.data.length === 0 && <Empty>{props.emptyText}</Empty>}
            <Pager pages={pages} hasMore={page.has_more} nextCursor={page.next_cursor} />
          </>
        )}
      </LoadState>
    </>
  );
}

function DisputesView() {
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
          <td><Link to={pathFor(ORDER_PAGE, { orderId: dispute.order_id })}>{dispute.order_id}</Link></td>
          <td><StatusBadge status={dispute.status} /></td>
          <td>{dispute.amount === null ? 'order amount' : <Money amount={dispute.amount} currency={dispute.currency} />}</td>
          <td><DateTime iso={dispute.review_deadline} /></td>
          <td><DateTime iso={dispute.created_at} /></td>
        </tr>
      )}
    />
  );
}

function WithdrawalsView() {
  return (
    <StatusFilteredList<Withdrawal>
      title="Withdrawals"
      statuses={['PENDING', 'COMPLETED', 'FAILED']}
      load={merchantApi.listWithdrawals}
      caption="Withdrawals, newest first"
      headings={['Order', 'Status', 'Amount', 'Network fee', 'Address', 'Transaction', 'Created']}
      emptyText="No withdrawals."
      row={(withdrawal) => (
        <tr key={withdrawal.order_id}>
          <td>{withdrawal.order_id}</td>
          <td><StatusBadge status={withdrawal.status} />{withdrawal.failure_reason ? <span className="muted"> {withdrawal.failure_reason}</span> : null}</td>
          <td><Money amount={withdrawal.amount} currency={withdrawal.currency} /></td>
          <td><Money amount={withdrawal.network_fee} currency={withdrawal.currency} /></td>
          <td className="wrap"><code>{withdrawal.address}</code> ({withdrawal.network})</td>
          <td className="wrap">{withdrawal.transaction_hash ? <code>{withdrawal.transaction_hash}</code> : '—'}</td>
          <td><DateTime iso={withdrawal.created_at} /></td>
        </tr>
      )}
    />
  );
}

function ReportsView() {
  const balances = useLoad(() => merchantApi.balances(), []);
  const [day, setDay] = useState(() => new Date().toISOString().slice(0, 10));
  const [currency, setCurrency] = useState('');
  const action = useAction();
  const download = async (fallbackCurrency: string) => {
    const chosen = currency || fallbackCurrency;
    const file = await action.run(() => merchantApi.reconciliationCsv(day, chosen));
    if (file) saveBlob(file.blob, file.fileName ?? `reconciliation-${day}-${chosen}.csv`);
  };
  return (
    <>
      <h1>Reports</h1>
      <p>The reconciliation report lists every money movement on your balances in one currency on one UTC day, in minor units.</p>
      <LoadState loaded={balances}>
        {(data) => {
          const currencies = Array.from(new Set([...data.settlement.map((row) => row.currency), ...data.deposit.map((row) => row.currency)]));
          const fallback = currencies[0] ?? 'RUB';
          return (
            <Form label="Reconciliation report" onSubmit={() => download(fallback)}>
              <TextField label="Day" type="date" value={day} onChange={setDay} required />
              {currencies.length > 0 ? (
                <SelectField label="Currency" value={currency || fallback} onChange={setCurrency} options={currencies.map((code) => ({ value: code, label: code }))} />
              ) : (
                <TextField label="Currency" value={currency} onChange={(value) => setCurrency(value.toUpperCase())} required />
              )}
              {action.error && <ErrorAlert error={action.error} />}
              <button type="submit" disabled={action.busy}>Download reconciliation CSV</button>
            </Form>
          );
        }}
      </LoadState>
    </>
  );
}

type Rotation = 'api' | 'webhook';

function CredentialsView() {
  const profile = useLoad(() => merchantApi.profile(), []);
  const [confirming, setConfirming] = useState<Rotation | null>(null);
  const [rotated, setRotated] = useState<{ kind: Rotation; answer: RotatedSecret } | null>(null);
  const action = useAction();
  const closeConfirm = useCallback(() => setConfirming(null), []);
  const closeSecret = useCallback(() => setRotated(null), []);
  const rotate = async (kind: Rotation) => {
    setConfirming(null);
    const answer = await action.run(() => (kind === 'api' ? merchantApi.rotateApiSecret() : merchantApi.rotateWebhookSecret()));
    if (answer) setRotated({ kind, answer });
  };
  return (
    <>
      <h1>Credentials</h1>
      <LoadState loaded={profile}>
        {(merchant) => (
          <dl className="facts">
            <dt>Merchant ID (x-api-key)</dt><dd><code>{merchant.merchant_id}</code></dd>
            <dt>Name</dt><dd>{merchant.name}</dd>
            <dt>Status</dt><dd>{merchant.status}</dd>
            <dt>Default callback URL</dt><dd className="wrap">{merchant.default_callback_url ?? 'none'}{merchant.default_callback_url_disabled ? ' (disabled)' : ''}</dd>
          </dl>
        )}
      </LoadState>
      <h2>Rotate secrets</h2>
      <p>The previous secret stays valid for the overlap window (24 hours unless your operator set another), so you can roll the new one out without downtime.</p>
      {action.error && <ErrorAlert error={action.error} />}
      <div className="actions">
        <button type="button" onClick={() => setConfirming('api')} disabled={action.busy}>Rotate API secret</button>
        <button type="button" onClick={() => setConfirming('webhook')} disabled={action.busy}>Rotate webhook secret</button>
      </div>
      <h2>Test credentials</h2>
      <p>
        Sandbox credentials (a <code>test_</code> merchant with its own secrets and magic amounts) are issued once by your operator.
        Then switch to <strong>Test</strong> mode at the top: every view shows your sandbox, and this page rotates its secrets (the new one shown to you once).
        Until they are issued, test mode answers that there is no sandbox yet.
      </p>
      {confirming && (
        <ConfirmDialog
          title={confirming === 'api' ? 'Rotate the API secret?' : 'Rotate the webhook secret?'}
          message={confirming === 'api' ? 'A new API secret is made now. Requests signed with the current one keep working until the overlap ends.' : 'A new webhook secret is made now. Callbacks carry both signatures until the overlap ends.'}
          confirmLabel="Rotate"
          onConfirm={() => rotate(confirming)}
          onClose={closeConfirm}
        />
      )}
      {rotated && (
        <SecretDialog
          title={rotated.kind === 'api' ? 'Your new API secret' : 'Your new webhook secret'}
          secrets={[
            { label: rotated.kind === 'api' ? 'API secret' : 'Webhook secret', value: (rotated.kind === 'api' ? rotated.answer.api_secret : rotated.answer.webhook_secret) ?? '' },
            { label: 'Previous secret valid until', value: formatDateTime(rotated.answer.previous_secret_valid_until) },
          ]}
          onClose={closeSecret}
        />
      )}
    </>
  );
}

export const merchantRoutes: RouteDefinition[] = [
  { pattern: '/merchant/balances', navLabel: 'Balances', render: () => <BalancesView /> },
  { pattern: '/merchant/orders', navLabel: 'Orders', render: () => <OrdersView /> },
  { pattern: ORDER_PAGE, render: (params) => <OrderView key={params['orderId']} orderId={params['orderId'] ?? ''} /> },
  { pattern: '/merchant/disputes', navLabel: 'Disputes', render: () => <DisputesView /> },
  { pattern: '/merchant/withdrawals', navLabel: 'Withdrawals', render: () => <WithdrawalsView /> },
  { pattern: '/merchant/webhooks', navLabel: 'Webhooks', render: () => <WebhooksView /> },
  { pattern: '/merchant/reports', navLabel: 'Reports', render: () => <ReportsView /> },
  { pattern: '/merchant/credentials', navLabel: 'Credentials', render: () => <CredentialsView /> },
];
