import { useState } from 'react';
import { merchantApi } from '../../api/console-api';
import { DateTime, Empty, ErrorAlert, LoadState, Pager, useAction, useCursorPages, useLoad } from '../../app/components';
import { DeliveriesTable } from './deliveries-table';

export function WebhooksView() {
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
      <p>
        <button type="button" onClick={sendTest} disabled={action.busy}>
          Send a test callback
        </button>
      </p>
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
                <tr>
                  <th scope="col">URL</th>
                  <th scope="col">Since</th>
                  <th scope="col">Why</th>
                  <th scope="col">Kept callbacks</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {answer.data.map((endpoint) => (
                  <tr key={endpoint.url}>
                    <td className="wrap">{endpoint.url}</td>
                    <td>
                      <DateTime iso={endpoint.disabled_at} />
                    </td>
                    <td>{endpoint.reason}</td>
                    <td>{endpoint.parked_deliveries}</td>
                    <td>
                      <button type="button" onClick={() => enable(endpoint.url)} disabled={action.busy}>
                        Enable
                      </button>
                    </td>
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
