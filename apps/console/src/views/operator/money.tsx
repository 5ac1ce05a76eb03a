import { useCallback, useState } from 'react';
import { operatorApi } from '../../api/console-api';
import type { Approval } from '../../api/types';
import { DateTime, Empty, ErrorAlert, Form, LoadState, TextField, newIdempotencyId, useAction, useLoad } from '../../app/components';
import { formatMoney } from '../../lib/money';
import { DialogForm } from './dialog-form';

/** Top-ups, adjustments and conversions, and the requests waiting for a second operator's approval. */
export function MoneyView() {
  const approvals = useLoad(() => operatorApi.approvals('pending'), []);
  const [topUp, setTopUp] = useState({ merchantId: '', currency: '', amount: '', reason: '' });
  const [conversion, setConversion] = useState({ merchantId: '', from: '', to: '', amount: '', rate: '', reason: '' });
  const [booking, setBooking] = useState<'top-up' | 'conversion'>('top-up');
  const [rejecting, setRejecting] = useState<Approval | null>(null);
  const [rejectReason, setRejectReason] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();
  const closeReject = useCallback(() => setRejecting(null), []);

  const outcome = (answer: Record<string, unknown>) =>
    'approval_id' in answer ? `Submitted for approval: request ${String(answer['approval_id'])} waits for a second operator.` : 'Booked.';
  const submitTopUp = async () => {
    setNotice(null);
    const answer = await action.run(() =>
      operatorApi.adjustDeposit(topUp.merchantId.trim(), {
        currency: topUp.currency,
        amount: topUp.amount,
        reason: topUp.reason,
        adjustment_id: newIdempotencyId('adj'),
      }),
    );
    if (answer) {
      setNotice(outcome(answer));
      setTopUp({ merchantId: '', currency: '', amount: '', reason: '' });
      approvals.reload();
    }
  };
  const submitConversion = async () => {
    setNotice(null);
    const answer = await action.run(() =>
      operatorApi.convert(conversion.merchantId.trim(), {
        conversion_id: newIdempotencyId('cnv'),
        from_currency: conversion.from,
        to_currency: conversion.to,
        amount: conversion.amount,
        rate: conversion.rate,
        reason: conversion.reason,
      }),
    );
    if (answer) {
      setNotice(outcome(answer));
      approvals.reload();
    }
  };
  const decide = async (approval: Approval, approve: boolean) => {
    setNotice(null);
    const answer = await action.run(() =>
      approve ? operatorApi.approve(approval.approval_id) : operatorApi.reject(approval.approval_id, rejectReason.trim()),
    );
    if (answer) {
      setNotice(`Request ${approval.approval_id} ${answer.status}.`);
      setRejecting(null);
      setRejectReason('');
      approvals.reload();
    }
  };
  return (
    <>
      <h1>Deposits and conversions</h1>
      {action.error && !rejecting && <ErrorAlert error={action.error} />}
      {notice && <p role="status">{notice}</p>}
      <div className="segmented" role="group" aria-label="What to book">
        <button type="button" aria-pressed={booking === 'top-up'} onClick={() => setBooking('top-up')}>
          Top-up or adjustment
        </button>
        <button type="button" aria-pressed={booking === 'conversion'} onClick={() => setBooking('conversion')}>
          Conversion
        </button>
      </div>
      {/* One form at a time: both have a "Merchant ID" and a "Reason", and a label names one field. */}
      {booking === 'top-up' ? (
        <section aria-labelledby="top-up-heading">
          <h2 id="top-up-heading">Book a top-up</h2>
          <Form label="Book a top-up" onSubmit={submitTopUp}>
            <TextField
              id="topup-merchant"
              label="Merchant ID"
              value={topUp.merchantId}
              onChange={(value) => setTopUp({ ...topUp, merchantId: value })}
              required
            />
            <TextField
              id="topup-currency"
              label="Currency"
              value={topUp.currency}
              onChange={(value) => setTopUp({ ...topUp, currency: value.toUpperCase() })}
              required
            />
            <TextField id="topup-amount" label="Amount" value={topUp.amount} onChange={(value) => setTopUp({ ...topUp, amount: value })} required />
            <TextField id="topup-reason" label="Reason" value={topUp.reason} onChange={(value) => setTopUp({ ...topUp, reason: value })} required />
            <p className="muted">A negative amount takes money away. Above the currency's threshold a second operator must approve.</p>
            <button type="submit" disabled={action.busy}>
              Submit for approval
            </button>
          </Form>
        </section>
      ) : (
        <section aria-labelledby="conversion-heading">
          <h2 id="conversion-heading">Book a conversion</h2>
          <Form label="Book a conversion" onSubmit={submitConversion}>
            <TextField
              id="cnv-merchant"
              label="Merchant ID"
              value={conversion.merchantId}
              onChange={(value) => setConversion({ ...conversion, merchantId: value })}
              required
            />
            <TextField
              id="cnv-from"
              label="From currency"
              value={conversion.from}
              onChange={(value) => setConversion({ ...conversion, from: value.toUpperCase() })}
              required
            />
            <TextField
              id="cnv-to"
              label="To currency"
              value={conversion.to}
              onChange={(value) => setConversion({ ...conversion, to: value.toUpperCase() })}
              required
            />
            <TextField
              id="cnv-amount"
              label="Amount to convert"
              value={conversion.amount}
              onChange={(value) => setConversion({ ...conversion, amount: value })}
              required
            />
            <TextField
              id="cnv-rate"
              label="Rate (to per from)"
              value={conversion.rate}
              onChange={(value) => setConversion({ ...conversion, rate: value })}
              required
            />
            <TextField
              id="cnv-reason"
              label="Reason"
              value={conversion.reason}
              onChange={(value) => setConversion({ ...conversion, reason: value })}
              required
            />
            <button type="submit" disabled={action.busy}>
              Submit conversion
            </button>
          </Form>
        </section>
      )}
      <LoadState loaded={approvals}>
        {(answer) => (
          <>
            <div className="table-scroll">
              <table>
                <caption>Waiting for approval</caption>
                <thead>
                  <tr>
                    <th scope="col">Request</th>
                    <th scope="col">Kind</th>
                    <th scope="col">Merchant</th>
                    <th scope="col">Amount</th>
                    <th scope="col">Requested by</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {answer.data.map((approval) => (
                    <tr key={approval.approval_id}>
                      <td>
                        <code>{approval.approval_id}</code>
                      </td>
                      <td>{approval.kind}</td>
                      <td>
                        <code>{approval.merchant_id}</code>
                      </td>
                      <td>
                        {approvalAmount(approval)}
                        {approval.terms['reason'] ? <span className="muted"> ({approval.terms['reason']})</span> : null}
                      </td>
                      <td>{approval.requested_by}</td>
                      <td>
                        <DateTime iso={approval.expires_at} />
                      </td>
                      <td>
                        <div className="actions">
                          <button type="button" onClick={() => decide(approval, true)} disabled={action.busy}>
                            Approve
                          </button>
                          <button
                            type="button"
                            className="danger"
                            onClick={() => {
                              action.clearError();
                              setRejecting(approval);
                            }}
                            disabled={action.busy}
                          >
                            Reject
                          </button>
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {answer.data.length === 0 && <Empty>No requests are waiting for approval.</Empty>}
          </>
        )}
      </LoadState>
      {rejecting && (
        <RejectDialog
          approval={rejecting}
          reason={rejectReason}
          onReason={setRejectReason}
          busy={action.busy}
          error={action.error}
          onReject={() => decide(rejecting, false)}
          onClose={closeReject}
        />
      )}
    </>
  );
}

function approvalAmount(approval: Approval): string {
  const currency = approval.terms['currency'] ?? approval.terms['from_currency'];
  const minor = approval.terms['amount_minor'];
  if (!currency || minor === undefined) return '—';
  try {
    return formatMoney(BigInt(minor), currency);
  } catch {
    return `${minor} (minor units) ${currency}`;
  }
}

function RejectDialog(props: {
  approval: Approval;
  reason: string;
  onReason: (value: string) => void;
  busy: boolean;
  error: ReturnType<typeof useAction>['error'];
  onReject: () => void;
  onClose: () => void;
}) {
  return (
    <DialogForm title={`Reject request ${props.approval.approval_id}`} onClose={props.onClose} onSubmit={props.onReject}>
      <TextField id="reject-reason" label="Reason" value={props.reason} onChange={props.onReason} required />
      {props.error && <ErrorAlert error={props.error} />}
      <div className="actions">
        <button type="submit" className="danger" disabled={props.busy}>
          Reject request
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </DialogForm>
  );
}
