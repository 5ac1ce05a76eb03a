import { operatorApi } from '../../api/console-api';
import type { ConsoleKey } from '../../api/types';
import { DateTime, Empty, ErrorAlert, LoadState, useAction, useLoad } from '../../app/components';
import { formatDateTime } from '../../lib/dates';
import { StatusBadge } from '../status';
import type { Secrets } from './secrets';

/** A merchant's console keys: issue (the key shown once), list and revoke. */
export function ConsoleKeys({ merchantId, onIssued }: { merchantId: string; onIssued: (secrets: Secrets) => void }) {
  const keys = useLoad(() => operatorApi.consoleKeys(merchantId), [merchantId]);
  const action = useAction();
  const issue = async () => {
    const key = await action.run(() => operatorApi.issueConsoleKey(merchantId));
    if (key) {
      onIssued({
        title: 'New console key',
        secrets: [
          { label: 'Console key', value: key.console_key ?? '' },
          { label: 'Expires', value: formatDateTime(key.expires_at) },
        ],
      });
      keys.reload();
    }
  };
  const revoke = async (key: ConsoleKey) => {
    if (await action.run(() => operatorApi.revokeConsoleKey(merchantId, key.key_id))) keys.reload();
  };
  return (
    <section aria-labelledby="console-keys">
      <h2 id="console-keys">Console keys</h2>
      {action.error && <ErrorAlert error={action.error} />}
      <p>
        <button type="button" onClick={issue} disabled={action.busy}>
          Issue console key
        </button>
      </p>
      <LoadState loaded={keys}>
        {(answer) =>
          answer.data.length === 0 ? (
            <Empty>No console keys issued.</Empty>
          ) : (
            <table>
              <caption>Console keys</caption>
              <thead>
                <tr>
                  <th scope="col">Key</th>
                  <th scope="col">State</th>
                  <th scope="col">Created</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Revoked</th>
                  <th scope="col">Action</th>
                </tr>
              </thead>
              <tbody>
                {answer.data.map((key) => (
                  <tr key={key.key_id}>
                    <td>
                      <code>{key.key_id}</code>
                    </td>
                    <td>
                      <StatusBadge status={key.state ?? (key.revoked_at ? 'revoked' : 'active')} />
                    </td>
                    <td>
                      <DateTime iso={key.created_at} />
                    </td>
                    <td>
                      <DateTime iso={key.expires_at} />
                    </td>
                    <td>
                      <DateTime iso={key.revoked_at ?? null} />
                    </td>
                    <td>
                      {(key.state ?? (key.revoked_at ? 'revoked' : 'active')) === 'active' && (
                        <button type="button" className="danger" onClick={() => revoke(key)} disabled={action.busy}>
                          Revoke
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </LoadState>
    </section>
  );
}
