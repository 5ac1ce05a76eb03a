import { useCallback, useState } from 'react';
import { operatorApi } from '../../api/console-api';
import { ConfirmDialog, DateTime, Empty, ErrorAlert, Form, LoadState, Money, TextField, useAction, useLoad } from '../../app/components';
import { Link } from '../../app/router';
import { StatusBadge } from '../status';
import { ConsoleKeys } from './console-keys';
import { MethodsEditor } from './methods-editor';
import { useSecrets } from './secrets';

/** One merchant: its profile and balances, suspend or reinstate, test credentials, methods and fees, console keys. */
export function OperatorMerchantView({ merchantId }: { merchantId: string }) {
  const profile = useLoad(() => operatorApi.merchant(merchantId), [merchantId]);
  const balances = useLoad(() => operatorApi.merchantBalances(merchantId), [merchantId]);
  const action = useAction();
  const secrets = useSecrets();
  const [reason, setReason] = useState('');
  const [confirmTest, setConfirmTest] = useState(false);
  const closeTest = useCallback(() => setConfirmTest(false), []);
  const changeStatus = async (suspend: boolean) => {
    const answer = await action.run(() => (suspend ? operatorApi.suspend(merchantId, reason.trim()) : operatorApi.reinstate(merchantId, reason.trim())));
    if (answer) {
      setReason('');
      profile.reload();
    }
  };
  const issueTest = async () => {
    setConfirmTest(false);
    const answer = await action.run(() => operatorApi.issueTestCredentials(merchantId));
    if (answer)
      secrets.show({
        title: 'Test credentials',
        secrets: [
          { label: 'Sandbox merchant ID', value: answer.merchant_id },
          { label: 'API secret', value: answer.api_secret },
          { label: 'Webhook secret', value: answer.webhook_secret },
        ],
      });
  };
  return (
    <>
      <h1>Merchant {merchantId}</h1>
      <p>
        <Link to="/operator/merchants">Back to merchants</Link>
      </p>
      <LoadState loaded={profile}>
        {(merchant) => (
          <dl className="facts">
            <dt>Name</dt>
            <dd>{merchant.name}</dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={String(merchant.status ?? 'unknown')} />
            </dd>
            <dt>Default callback URL</dt>
            <dd className="wrap">{merchant.default_callback_url ?? 'none'}</dd>
            <dt>Created</dt>
            <dd>
              <DateTime iso={merchant.created_at} />
            </dd>
          </dl>
        )}
      </LoadState>
      <h2>Balances</h2>
      <LoadState loaded={balances}>
        {(data) =>
          data.settlement.length + data.deposit.length === 0 ? (
            <Empty>No balances yet.</Empty>
          ) : (
            <ul>
              {data.settlement.map((row) => (
                <li key={`s-${row.currency}`}>
                  Settlement: <Money amount={row.available} currency={row.currency} /> available, <Money amount={row.frozen} currency={row.currency} /> frozen
                </li>
              ))}
              {data.deposit.map((row) => (
                <li key={`d-${row.currency}`}>
                  Deposit: <Money amount={row.available} currency={row.currency} />
                </li>
              ))}
            </ul>
          )
        }
      </LoadState>
      <h2>Access</h2>
      <Form label="Suspend or reinstate" onSubmit={() => changeStatus(true)}>
        <TextField label="Reason" id="status-reason" value={reason} onChange={setReason} required />
        {action.error && <ErrorAlert error={action.error} />}
        <div className="actions">
          <button type="submit" className="danger" disabled={action.busy}>
            Suspend
          </button>
          <button type="button" disabled={action.busy || reason.trim() === ''} onClick={() => changeStatus(false)}>
            Reinstate
          </button>
        </div>
      </Form>
      <h2>Test credentials</h2>
      <p>
        <button type="button" disabled={action.busy} onClick={() => setConfirmTest(true)}>
          Issue test credentials
        </button>
      </p>
      <MethodsEditor merchantId={merchantId} />
      <ConsoleKeys merchantId={merchantId} onIssued={secrets.show} />
      {confirmTest && (
        <ConfirmDialog
          title="Issue test credentials?"
          message="The sandbox merchant gets new secrets now; any it had stop working."
          confirmLabel="Issue"
          onConfirm={issueTest}
          onClose={closeTest}
        />
      )}
      {secrets.dialog}
    </>
  );
}
