import { useCallback, useState } from 'react';
import { merchantApi } from '../../api/console-api';
import type { RotatedSecret } from '../../api/types';
import { ConfirmDialog, ErrorAlert, LoadState, SecretDialog, useAction, useLoad } from '../../app/components';
import { formatDateTime } from '../../lib/dates';

type Rotation = 'api' | 'webhook';

export function CredentialsView() {
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
            <dt>Merchant ID (x-api-key)</dt>
            <dd>
              <code>{merchant.merchant_id}</code>
            </dd>
            <dt>Name</dt>
            <dd>{merchant.name}</dd>
            <dt>Status</dt>
            <dd>{merchant.status}</dd>
            <dt>Default callback URL</dt>
            <dd className="wrap">
              {merchant.default_callback_url ?? 'none'}
              {merchant.default_callback_url_disabled ? ' (disabled)' : ''}
            </dd>
          </dl>
        )}
      </LoadState>
      <h2>Rotate secrets</h2>
      <p>
        The previous secret stays valid for the overlap window (24 hours unless your operator set another), so you can roll the new one out without downtime.
      </p>
      {action.error && <ErrorAlert error={action.error} />}
      <div className="actions">
        <button type="button" onClick={() => setConfirming('api')} disabled={action.busy}>
          Rotate API secret
        </button>
        <button type="button" onClick={() => setConfirming('webhook')} disabled={action.busy}>
          Rotate webhook secret
        </button>
      </div>
      <h2>Test credentials</h2>
      <p>
        Sandbox credentials (a <code>test_</code> merchant with its own secrets and magic amounts) are issued once by your operator. Then switch to{' '}
        <strong>Test</strong> mode at the top: every view shows your sandbox, and this page rotates its secrets (the new one shown to you once). Until they are
        issued, test mode answers that there is no sandbox yet.
      </p>
      {confirming && (
        <ConfirmDialog
          title={confirming === 'api' ? 'Rotate the API secret?' : 'Rotate the webhook secret?'}
          message={
            confirming === 'api'
              ? 'A new API secret is made now. Requests signed with the current one keep working until the overlap ends.'
              : 'A new webhook secret is made now. Callbacks carry both signatures until the overlap ends.'
          }
          confirmLabel="Rotate"
          onConfirm={() => rotate(confirming)}
          onClose={closeConfirm}
        />
      )}
      {rotated && (
        <SecretDialog
          title={rotated.kind === 'api' ? 'Your new API secret' : 'Your new webhook secret'}
          secrets={[
            {
              label: rotated.kind === 'api' ? 'API secret' : 'Webhook secret',
              value: (rotated.kind === 'api' ? rotated.answer.api_secret : rotated.answer.webhook_secret) ?? '',
            },
            { label: 'Previous secret valid until', value: formatDateTime(rotated.answer.previous_secret_valid_until) },
          ]}
          onClose={closeSecret}
        />
      )}
    </>
  );
}
