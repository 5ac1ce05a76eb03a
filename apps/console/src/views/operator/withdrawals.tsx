import { useCallback, useState } from 'react';
import { operatorApi } from '../../api/console-api';
import type { StuckWithdrawal } from '../../api/types';
import { DateTime, Empty, ErrorAlert, LoadState, Money, SelectField, TextField, useAction, useLoad } from '../../app/components';
import { DialogForm } from './dialog-form';

/** Withdrawals stuck without an outcome: ask the network again, or resolve by hand. */
export function OperatorWithdrawalsView() {
  const stuck = useLoad(() => operatorApi.stuckWithdrawals(), []);
  const action = useAction();
  const [notice, setNotice] = useState<string | null>(null);
  const [resolving, setResolving] = useState<StuckWithdrawal | null>(null);
  const [resolution, setResolution] = useState({ outcome: 'failed', reason: '', hash: '' });
  const closeResolve = useCallback(() => setResolving(null), []);
  const merchantOf = (withdrawal: StuckWithdrawal) => withdrawal.merchant_id;
  const reconcile = async (withdrawal: StuckWithdrawal) => {
    setNotice(null);
    if (await action.run(() => operatorApi.reconcileWithdrawal(merchantOf(withdrawal), withdrawal.order_id))) {
      setNotice(`Asked the network about ${withdrawal.order_id}.`);
      stuck.reload();
    }
  };
  const resolve = async () => {
    if (!resolving) return;
    const body = {
      outcome: resolution.outcome as 'completed' | 'failed',
      reason: resolution.reason.trim(),
      ...(resolution.outcome === 'completed' ? { transaction_hash: resolution.hash.trim() } : {}),
    };
    const answer = await action.run(() => operatorApi.resolveWithdrawal(merchantOf(resolving), resolving.order_id, body));
    if (answer) {
      setNotice(`Withdrawal ${resolving.order_id} is now ${answer.status}.`);
      setResolving(null);
      stuck.reload();
    }
  };
  return (
    <>
      <h1>Withdrawals</h1>
      {action.error && !resolving && <ErrorAlert error={action.error} />}
      {notice && <p role="status">{notice}</p>}
      <LoadState loaded={stuck}>
        {(answer) => (
          <>
            <div className="table-scroll">
              <table>
                <caption>Withdrawals without an outcome for over 15 minutes</caption>
                <thead>
                  <tr>
                    <th scope="col">Merchant</th>
                    <th scope="col">Order</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Network</th>
                    <th scope="col">Created</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {answer.data.map((withdrawal) => (
                    <tr key={`${merchantOf(withdrawal)}/${withdrawal.order_id}`}>
                      <td>
                        <code>{merchantOf(withdrawal)}</code>
                      </td>
                      <td>{withdrawal.order_id}</td>
                      <td>
                        <Money amount={withdrawal.amount} currency={withdrawal.currency} />
                      </td>
                      <td>{withdrawal.network}</td>
                      <td>
                        <DateTime iso={withdrawal.created_at} />
                      </td>
                      <td>
                        <div className="actions">
                          <button type="button" onClick={() => reconcile(withdrawal)} disabled={action.busy}>
                            Reconcile
                          </button>
                          <button
                            type="button"
                            onClick={() => {
                              action.clearError();
                              setResolving(withdrawal);
                            }}
                            disabled={action.busy}
                          >
                            Resolve
                          </button>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {answer.data.length === 0 && <Empty>No withdrawals are stuck.</Empty>}
          </>
        )}
      </LoadState>
      {resolving && (
        <DialogForm title={`Resolve withdrawal ${resolving.order_id}`} onClose={closeResolve} onSubmit={resolve}>
          <SelectField
            label="Outcome"
            value={resolution.outcome}
            onChange={(value) => setResolution({ ...resolution, outcome: value })}
            options={[
              { value: 'failed', label: 'Failed: return the frozen money' },
              { value: 'completed', label: 'Completed: found on the network' },
            ]}
          />
          {resolution.outcome === 'completed' && (
            <TextField
              id="resolve-hash"
              label="Transaction hash"
              value={resolution.hash}
              onChange={(value) => setResolution({ ...resolution, hash: value })}
              required
            />
          )}
          <TextField
            id="resolve-reason"
            label="Reason"
            value={resolution.reason}
            onChange={(value) => setResolution({ ...resolution, reason: value })}
            required
          />
          {action.error && <ErrorAlert error={action.error} />}
          <div className="actions">
            <button type="submit" disabled={action.busy}>
              Resolve withdrawal
            </button>
            <button type="button" onClick={closeResolve}>
              Cancel
            </button>
          </div>
        </DialogForm>
      )}
    </>
  );
}
