import { useCallback, useEffect, useState, type ReactNode } from 'react';
import { operatorApi } from '../api/console-api';
import type { AgentProfile, Approval, ConsoleKey, Dispute, MerchantProfile, MethodEntry, QueuedDispute, StuckWithdrawal } from '../api/types';
import type { RouteDefinition } from '../app/App';
import { ConfirmDialog, DateTime, Dialog, Empty, ErrorAlert, Form, LoadState, Money, SecretDialog, SelectField, TextField, newIdempotencyId, useAction, useLoad } from '../app/components';
import { Link, navigate } from '../app/router';
import { formatDateTime } from '../lib/dates';
import { formatMoney } from '../lib/money';
import { pathFor } from '../lib/route-match';
import { StatusBadge, StatusFilteredList } from './merchant';

const MERCHANT_PAGE = '/operator/merchants/:merchantId';
const DISPUTE_PAGE = '/operator/disputes/:merchantId/:disputeId';

type Secrets = { title: string; secrets: { label: string; value: string }[] } | null;

function useSecrets() {
  const [secrets, setSecrets] = useState<Secrets>(null);
  const close = useCallback(() => setSecrets(null), []);
  const dialog = secrets ? <SecretDialog title={secrets.title} secrets={secrets.secrets} onClose={close} /> : null;
  return { show: setSecrets, dialog };
}

/** Every merchant, newest first, with the forms to open one by its id and to create one. */
function MerchantsView() {
  const [name, setName] = useState('');
  const [callbackUrl, setCallbackUrl] = useState('');
  const [lookup, setLookup] = useState('');
  const action = useAction();
  const secrets = useSecrets();
  const create = async () => {
    const merchant = await action.run(() => operatorApi.createMerchant(name.trim(), callbackUrl.trim() || undefined));
    if (merchant) {
      setName('');
      setCallbackUrl('');
      secrets.show({ title: `Merchant ${merchant.merchant_id} created`, secrets: [{ label: 'Merchant ID', value: merchant.merchant_id }, { label: 'API secret', value: merchant.api_secret }, { label: 'Webhook secret', value: merchant.webhook_secret }] });
    }
  };
  return (
    <StatusFilteredList<MerchantProfile & { mode: 'live' | 'test' }>
      title="Merchants"
      statuses={['active', 'suspended']}
      load={operatorApi.listMerchants}
      caption="Merchants, newest first"
      headings={['Merchant', 'Name', 'Mode', 'Status', 'Created']}
      emptyText="No merchants yet."
      row={(merchant) => (
        <tr key={merchant.merchant_id}>
          <td><Link to={pathFor(MERCHANT_PAGE, { merchantId: merchant.merchant_id })}>{merchant.merchant_id}</Link></td>
          <td>{merchant.name}</td>
          <td>{merchant.mode === 'test' ? 'sandbox' : 'live'}</td>
          <td><StatusBadge status={merchant.status.toUpperCase()} /></td>
          <td><DateTime iso={merchant.created_at} /></td>
        </tr>
      )}
    >
      <section aria-labelledby="open-merchant">
        <h2 id="open-merchant">Open a merchant</h2>
        <Form label="Open a merchant" onSubmit={() => lookup.trim() && navigate(pathFor(MERCHANT_PAGE, { merchantId: lookup.trim() }))}>
          <TextField label="Merchant ID" id="lookup-merchant-id" value={lookup} onChange={setLookup} required />
          <button type="submit">Open</button>
        </Form>
      </section>
      <section aria-labelledby="create-merchant">
        <h2 id="create-merchant">Create a merchant</h2>
        <Form label="Create a merchant" onSubmit={create}>
          <TextField label="Name" value={name} onChange={setName} required />
          <TextField label="Default callback URL" type="url" value={callbackUrl} onChange={setCallbackUrl} />
          {action.error && <ErrorAlert error={action.error} />}
          <button type="submit" disabled={action.busy}>Create merchant</button>
        </Form>
      </section>
      {secrets.dialog}
      <h2>All merchants</h2>
    </StatusFilteredList>
  );
}

function OperatorMerchantView({ merchantId }: { merchantId: string }) {
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
    if (answer) secrets.show({ title: 'Test credentials', secrets: [{ label: 'Sandbox merchant ID', value: answer.merchant_id }, { label: 'API secret', value: answer.api_secret }, { label: 'Webhook secret', value: answer.webhook_secret }] });
  };
  return (
    <>
      <h1>Merchant {merchantId}</h1>
      <p><Link to="/operator/merchants">Back to merchants</Link></p>
      <LoadState loaded={profile}>
        {(merchant) => (
          <dl className="facts">
            <dt>Name</dt><dd>{merchant.name}</dd>
            <dt>Status</dt><dd><StatusBadge status={String(merchant.status ?? 'unknown')} /></dd>
            <dt>Default callback URL</dt><dd className="wrap">{merchant.default_callback_url ?? 'none'}</dd>
            <dt>Created</dt><dd><DateTime iso={merchant.created_at} /></dd>
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
              {data.settlement.map((row) => (<li key={`s-${row.currency}`}>Settlement: <Money amount={row.available} currency={row.currency} /> available, <Money amount={row.frozen} currency={row.currency} /> frozen</li>))}
              {data.deposit.map((row) => (<li key={`d-${row.currency}`}>Deposit: <Money amount={row.available} currency={row.currency} /></li>))}
            </ul>
          )
        }
      </LoadState>
      <h2>Access</h2>
      <Form label="Suspend or reinstate" onSubmit={() => changeStatus(true)}>
        <TextField label="Reason" id="status-reason" value={reason} onChange={setReason} required />
        {action.error && <ErrorAlert error={action.error} />}
        <div className="actions">
          <button type="submit" className="danger" disabled={action.busy}>Suspend</button>
          <button type="button" disabled={action.busy || reason.trim() === ''} onClick={() => changeStatus(false)}>Reinstate</button>
        </div>
      </Form>
      <h2>Test credentials</h2>
      <p><button type="button" disabled={action.busy} onClick={() => setConfirmTest(true)}>Issue test credentials</button></p>
      <MethodsEditor merchantId={merchantId} />
      <ConsoleKeys merchantId={merchantId} onIssued={secrets.show} />
      {confirmTest && <ConfirmDialog title="Issue test credentials?" message="The sandbox merchant gets new secrets now; any it had stop working." confirmLabel="Issue" onConfirm={issueTest} onClose={closeTest} />}
      {secrets.dialog}
    </>
  );
}

function ConsoleKeys({ merchantId, onIssued }: { merchantId: string; onIssued: (secrets: Secrets) => void }) {
  const keys = useLoad(() => operatorApi.consoleKeys(merchantId), [merchantId]);
  const action = useAction();
  const issue = async () => {
    const key = await action.run(() => operatorApi.issueConsoleKey(merchantId));
    if (key) {
      onIssued({ title: 'New console key', secrets: [{ label: 'Console key', value: key.console_key ?? '' }, { label: 'Expires', value: formatDateTime(key.expires_at) }] });
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
      <p><button type="button" onClick={issue} disabled={action.busy}>Issue console key</button></p>
      <LoadState loaded={keys}>
        {(answer) =>
          answer.data.length === 0 ? (
            <Empty>No console keys issued.</Empty>
          ) : (
            <table>
              <caption>Console keys</caption>
              <thead><tr><th scope="col">Key</th><th scope="col">State</th><th scope="col">Created</th><th scope="col">Expires</th><th scope="col">Revoked</th><th scope="col">Action</th></tr></thead>
              <tbody>
                {answer.data.map((key) => (
                  <tr key={key.key_id}>
                    <td><code>{key.key_id}</code></td>
                    <td><StatusBadge status={key.state ?? (key.revoked_at ? 'revoked' : 'active')} /></td>
                    <td><DateTime iso={key.created_at} /></td>
                    <td><DateTime iso={key.expires_at} /></td>
                    <td><DateTime iso={key.revoked_at ?? null} /></td>
                    <td>{(key.state ?? (key.revoked_at ? 'revoked' : 'active')) === 'active' && <button type="button" className="danger" onClick={() => revoke(key)} disabled={action.busy}>Revoke</button>}</td>
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

const NEW_METHOD: MethodEntry = { method: '', direction: 'incoming', country: '', currency: '', fee_rate_basis_points: 0, fee_fixed_minor: '0', min_amount_minor: '1', max_amount_minor: '100000000', expiry_minutes: 30 };

/** The merchant's method catalog, edited as a whole and stored with one PUT (the API replaces the catalog). */
function MethodsEditor({ merchantId }: { merchantId: string }) {
  const methods = useLoad(() => operatorApi.methods(merchantId), [merchantId]);
  const [entries, setEntries] = useState<MethodEntry[] | null>(null);
  const action = useAction();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (methods.state === 'ready') setEntries(methods.data.data);
  }, [methods]);
  const update = (index: number, patch: Partial<MethodEntry>) => setEntries((current) => (current ?? []).map((entry, at) => (at === index ? { ...entry, ...patch } : entry)));
  const save = async () => {
    setSaved(false);
    if (entries && (await action.run(() => operatorApi.putMethods(merchantId, entries)))) {
      setSaved(true);
      methods.reload();
    }
  };
  return (
    <section aria-labelledby="methods-heading">
      <h2 id="methods-heading">Methods and fees</h2>
      {methods.state !== 'ready' || !entries ? (
        <LoadState loaded={methods}>{() => null}</LoadState>
      ) : (
        <Form label="Methods and fees" onSubmit={save}>
          {entries.length === 0 && <Empty>No methods yet: add one.</Empty>}
          {entries.map((entry, index) => (
            <fieldset key={index} className="method">
              <legend>Method {index + 1}{entry.method ? `: ${entry.method}` : ''}</legend>
              <TextField id={`m${index}-method`} label="Method" value={entry.method} onChange={(value) => update(index, { method: value })} required />
              <SelectField label={`Direction of method ${index + 1}`} value={entry.direction} onChange={(value) => update(index, { direction: value as MethodEntry['direction'] })} options={[{ value: 'incoming', label: 'incoming' }, { value: 'outgoing', label: 'outgoing' }]} />
              <TextField id={`m${index}-country`} label="Country" value={entry.country} onChange={(value) => update(index, { country: value.toUpperCase() })} required />
              <TextField id={`m${index}-currency`} label="Currency" value={entry.currency} onChange={(value) => update(index, { currency: value.toUpperCase() })} required />
              <TextField id={`m${index}-rate`} label="Fee rate (basis points)" type="number" value={String(entry.fee_rate_basis_points)} onChange={(value) => update(index, { fee_rate_basis_points: Number.parseInt(value || '0', 10) })} />
              <TextField id={`m${index}-fixed`} label="Fixed fee (minor units)" value={entry.fee_fixed_minor} onChange={(value) => update(index, { fee_fixed_minor: value })} />
              <TextField id={`m${index}-min`} label="Minimum (minor units)" value={entry.min_amount_minor} onChange={(value) => update(index, { min_amount_minor: value })} />
              <TextField id={`m${index}-max`} label="Maximum (minor units)" value={entry.max_amount_minor} onChange={(value) => update(index, { max_amount_minor: value })} />
              <TextField id={`m${index}-expiry`} label="Expiry (minutes)" type="number" value={String(entry.expiry_minutes)} onChange={(value) => update(index, { expiry_minutes: Number.parseInt(value || '0', 10) })} />
              <button type="button" className="danger" onClick={() => setEntries(entries.filter((_, at) => at !== index))}>Remove method {index + 1}</button>
            </fieldset>
          ))}
          {action.error && <ErrorAlert error={action.error} />}
          {saved && <p role="status">Methods saved.</p>}
          <div className="actions">
            <button type="button" onClick={() => setEntries([...entries, { ...NEW_METHOD }])}>Add method</button>
            <button type="submit" disabled={action.busy}>Save methods</button>
          </div>
        </Form>
      )}
    </section>
  );
}

function AgentsView() {
  const [agentId, setAgentId] = useState('');
  const [profile, setProfile] = useState({ name: '', display_name: '', payment_details: '', method: '', country: '', currency: '', active: 'true' });
  const action = useAction();
  const secrets = useSecrets();
  const [notice, setNotice] = useState<string | null>(null);
  const body = (): AgentProfile => ({
    ...(profile.name ? { name: profile.name } : {}),
    display_name: profile.display_name,
    payment_details: profile.payment_details,
    serves: [{ method: profile.method, country: profile.country, currency: profile.currency }],
    ...(agentId ? { active: profile.active === 'true' } : {}),
  });
  const submit = async () => {
    setNotice(null);
    if (agentId.trim()) {
      const answer = await action.run(() => operatorApi.updateAgent(agentId.trim(), body()));
      if (answer) setNotice(`Agent ${answer.agent_id ?? agentId} saved; the list shows it after a reload.`);
    } else {
      const answer = await action.run(() => operatorApi.createAgent(body()));
      if (answer) secrets.show({ title: `Agent ${answer.agent_id} registered`, secrets: [{ label: 'Agent ID', value: answer.agent_id }, { label: 'Back-office token', value: answer.token }] });
    }
  };
  const set = (field: keyof typeof profile) => (value: string) => setProfile({ ...profile, [field]: value });
  /** Puts a listed agent in the form, to change its profile or deactivate it. */
  const edit = (agent: AgentProfile & { agent_id: string }) => {
    const [area] = agent.serves;
    setNotice(null);
    setAgentId(agent.agent_id);
    setProfile({ name: '', display_name: agent.display_name, payment_details: agent.payment_details, method: area?.method ?? '', country: area?.country ?? '', currency: area?.currency ?? '', active: String(agent.active !== false) });
    document.getElementById('agent-form-heading')?.focus();
  };
  return (
    <StatusFilteredList<AgentProfile & { agent_id: string; updated_at: string }>
      title="Agents"
      statuses={['active', 'inactive']}
      load={operatorApi.listAgents}
      caption="Agents, newest first"
      headings={['Agent', 'Display name', 'Serves', 'Status', 'Changed', 'Action']}
      emptyText="No agents registered yet."
      row={(agent) => (
        <tr key={agent.agent_id}>
          <td><code>{agent.agent_id}</code></td>
          <td>{agent.display_name}</td>
          <td>{agent.serves.map((area) => `${area.method} ${area.country} ${area.currency}`).join(', ')}</td>
          <td><StatusBadge status={agent.active === false ? 'INACTIVE' : 'ACTIVE'} /></td>
          <td><DateTime iso={agent.updated_at} /></td>
          <td><button type="button" onClick={() => edit(agent)}>Edit {agent.display_name}</button></td>
        </tr>
      )}
    >
      <h2 id="agent-form-heading" tabIndex={-1}>{agentId ? `Edit agent ${agentId}` : 'Register an agent'}</h2>
      <p>Leave Agent ID empty to register a new agent; fill it in (or press Edit on a listed agent) to replace that agent's profile.</p>
      <Form label="Agent profile" onSubmit={submit}>
        <TextField label="Agent ID" value={agentId} onChange={setAgentId} />
        <TextField label="Name" value={profile.name} onChange={set('name')} />
        <TextField label="Display name" value={profile.display_name} onChange={set('display_name')} required />
        <TextField label="Payment details" value={profile.payment_details} onChange={set('payment_details')} required />
        <fieldset>
          <legend>Serves</legend>
          <TextField label="Method" value={profile.method} onChange={set('method')} required />
          <TextField label="Country" value={profile.country} onChange={(value) => set('country')(value.toUpperCase())} required />
          <TextField label="Currency" value={profile.currency} onChange={(value) => set('currency')(value.toUpperCase())} required />
        </fieldset>
        {agentId && <SelectField label="Active" value={profile.active} onChange={set('active')} options={[{ value: 'true', label: 'Active' }, { value: 'false', label: 'Deactivated (its token stops working)' }]} />}
        {action.error && <ErrorAlert error={action.error} />}
        {notice && <p role="status">{notice}</p>}
        <button type="submit" disabled={action.busy}>{agentId ? 'Save agent' : 'Register agent'}</button>
      </Form>
      {secrets.dialog}
      <h2>All agents</h2>
    </StatusFilteredList>
  );
}

/** The review queue across merchants (OPEN first by default), and a dispute found by its merchant and id. */
function OperatorDisputesView() {
  const [merchantId, setMerchantId] = useState('');
  const [disputeId, setDisputeId] = useState('');
  return (
    <StatusFilteredList<QueuedDispute>
      title="Disputes"
      statuses={['OPEN', 'ACCEPTED', 'REJECTED']}
      load={operatorApi.disputeQueue}
      caption="Disputes of every merchant, newest first"
      headings={['Dispute', 'Merchant', 'Order', 'Status', 'Amount', 'Review due', 'Opened']}
      emptyText="No disputes."
      row={(dispute) => (
        <tr key={`${dispute.merchant_id}/${dispute.dispute_id}`}>
          <td><Link to={pathFor(DISPUTE_PAGE, { merchantId: dispute.merchant_id, disputeId: dispute.dispute_id })}>{dispute.dispute_id}</Link></td>
          <td><code>{dispute.merchant_id}</code></td>
          <td>{dispute.order_id}</td>
          <td><StatusBadge status={dispute.status} /></td>
          <td>{dispute.amount === null ? 'order amount' : <Money amount={dispute.amount} currency={dispute.currency} />}</td>
          <td><DateTime iso={dispute.review_deadline} /></td>
          <td><DateTime iso={dispute.created_at} /></td>
        </tr>
      )}
    >
      <Form label="Find a dispute" onSubmit={() => merchantId.trim() && disputeId.trim() && navigate(pathFor(DISPUTE_PAGE, { merchantId: merchantId.trim(), disputeId: disputeId.trim() }))}>
        <TextField label="Merchant ID" value={merchantId} onChange={setMerchantId} required />
        <TextField label="Dispute ID" value={disputeId} onChange={setDisputeId} required />
        <button type="submit">Open dispute</button>
      </Form>
      <h2>Review queue</h2>
    </StatusFilteredList>
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
          {url && file.contentType.startsWith('image/') && <img src={url} alt={`Receipt ${file.fileName ?? ''} attached to dispute ${disputeId}`} className="receipt" />}
          {url && (
            <p>
              <a href={url} download={file.fileName ?? `receipt-${disputeId}`}>Download receipt</a>
            </p>
          )}
        </>
      )}
    </LoadState>
  );
}

function OperatorDisputeView({ merchantId, disputeId }: { merchantId: string; disputeId: string }) {
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
      <p><Link to="/operator/disputes">Back to disputes</Link> · Merchant <code>{merchantId}</code></p>
      <DisputeFacts merchantId={merchantId} disputeId={disputeId} reviewed={reviewed} />
      <h2>Receipt</h2>
      <ReceiptPreview merchantId={merchantId} disputeId={disputeId} />
      <h2>Review</h2>
      {reviewed ? (
        <div role="status">
          <p>
            Dispute {reviewed.dispute_id} of order {reviewed.order_id}: <StatusBadge status={reviewed.status} />
            {reviewed.review?.settled_amount ? <> settled at <Money amount={reviewed.review.settled_amount} currency={reviewed.currency} /></> : null}
          </p>
        </div>
      ) : (
        <Form label="Review" onSubmit={() => review('ACCEPTED')}>
          <TextField label="Reason" value={reason} onChange={setReason} />
          {action.error && <ErrorAlert error={action.error} />}
          <div className="actions">
            <button type="submit" disabled={action.busy}>Accept</button>
            <button type="button" className="danger" disabled={action.busy} onClick={() => review('REJECTED')}>Reject</button>
          </div>
        </Form>
      )}
    </>
  );
}

/** What the merchant claims: the order, the amount and comment, the status and when the review is due. */
function DisputeFacts({ merchantId, disputeId, reviewed }: { merchantId: string; disputeId: string; reviewed: Dispute | null }) {
  const dispute = useLoad(() => operatorApi.dispute(merchantId, disputeId), [merchantId, disputeId, reviewed]);
  return (
    <LoadState loaded={dispute}>
      {(facts) => (
        <dl className="facts">
          <dt>Status</dt><dd><StatusBadge status={facts.status} /></dd>
          <dt>Order</dt><dd>{facts.order_id}</dd>
          <dt>Amount claimed</dt><dd>{facts.amount === null ? 'the order amount' : <Money amount={facts.amount} currency={facts.currency} />}</dd>
          <dt>Merchant's comment</dt><dd>{facts.comment ?? '—'}</dd>
          <dt>Opened</dt><dd><DateTime iso={facts.created_at} /></dd>
          <dt>Review due</dt><dd><DateTime iso={facts.review_deadline} /></dd>
        </dl>
      )}
    </LoadState>
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

function MoneyView() {
  const approvals = useLoad(() => operatorApi.approvals('pending'), []);
  const [topUp, setTopUp] = useState({ merchantId: '', currency: '', amount: '', reason: '' });
  const [conversion, setConversion] = useState({ merchantId: '', from: '', to: '', amount: '', rate: '', reason: '' });
  const [booking, setBooking] = useState<'top-up' | 'conversion'>('top-up');
  const [rejecting, setRejecting] = useState<Approval | null>(null);
  const [rejectReason, setRejectReason] = useState('');
  const [notice, setNotice] = useState<string | null>(null);
  const action = useAction();
  const closeReject = useCallback(() => setRejecting(null), []);

  const outcome = (answer: Record<string, unknown>) => ('approval_id' in answer ? `Submitted for approval: request ${String(answer['approval_id'])} waits for a second operator.` : 'Booked.');
  const submitTopUp = async () => {
    setNotice(null);
    const answer = await action.run(() => operatorApi.adjustDeposit(topUp.merchantId.trim(), { currency: topUp.currency, amount: topUp.amount, reason: topUp.reason, adjustment_id: newIdempotencyId('adj') }));
    if (answer) {
      setNotice(outcome(answer));
      setTopUp({ merchantId: '', currency: '', amount: '', reason: '' });
      approvals.reload();
    }
  };
  const submitConversion = async () => {
    setNotice(null);
    const answer = await action.run(() =>
      operatorApi.convert(conversion.merchantId.trim(), { conversion_id: newIdempotencyId('cnv'), from_currency: conversion.from, to_currency: conversion.to, amount: conversion.amount, rate: conversion.rate, reason: conversion.reason }),
    );
    if (answer) {
      setNotice(outcome(answer));
      approvals.reload();
    }
  };
  const decide = async (approval: Approval, approve: boolean) => {
    setNotice(null);
    const answer = await action.run(() => (approve ? operatorApi.approve(approval.approval_id) : operatorApi.reject(approval.approval_id, rejectReason.trim())));
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
        <button type="button" aria-pressed={booking === 'top-up'} onClick={() => setBooking('top-up')}>Top-up or adjustment</button>
        <button type="button" aria-pressed={booking === 'conversion'} onClick={() => setBooking('conversion')}>Conversion</button>
      </div>
      {/* One form at a time: both have a "Merchant ID" and a "Reason", and a label names one field. */}
      {booking === 'top-up' ? (
        <section aria-labelledby="top-up-heading">
          <h2 id="top-up-heading">Book a top-up</h2>
          <Form label="Book a top-up" onSubmit={submitTopUp}>
            <TextField id="topup-merchant" label="Merchant ID" value={topUp.merchantId} onChange={(value) => setTopUp({ ...topUp, merchantId: value })} required />
            <TextField id="topup-currency" label="Currency" value={topUp.currency} onChange={(value) => setTopUp({ ...topUp, currency: value.toUpperCase() })} required />
            <TextField id="topup-amount" label="Amount" value={topUp.amount} onChange={(value) => setTopUp({ ...topUp, amount: value })} required />
            <TextField id="topup-reason" label="Reason" value={topUp.reason} onChange={(value) => setTopUp({ ...topUp, reason: value })} required />
            <p className="muted">A negative amount takes money away. Above the currency's threshold a second operator must approve.</p>
            <button type="submit" disabled={action.busy}>Submit for approval</button>
          </Form>
        </section>
      ) : (
        <section aria-labelledby="conversion-heading">
          <h2 id="conversion-heading">Book a conversion</h2>
          <Form label="Book a conversion" onSubmit={submitConversion}>
            <TextField id="cnv-merchant" label="Merchant ID" value={conversion.merchantId} onChange={(value) => setConversion({ ...conversion, merchantId: value })} required />
            <TextField id="cnv-from" label="From currency" value={conversion.from} onChange={(value) => setConversion({ ...conversion, from: value.toUpperCase() })} required />
            <TextField id="cnv-to" label="To currency" value={conversion.to} onChange={(value) => setConversion({ ...conversion, to: value.toUpperCase() })} required />
            <TextField id="cnv-amount" label="Amount to convert" value={conversion.amount} onChange={(value) => setConversion({ ...conversion, amount: value })} required />
            <TextField id="cnv-rate" label="Rate (to per from)" value={conversion.rate} onChange={(value) => setConversion({ ...conversion, rate: value })} required />
            <TextField id="cnv-reason" label="Reason" value={conversion.reason} onChange={(value) => setConversion({ ...conversion, reason: value })} required />
            <button type="submit" disabled={action.busy}>Submit conversion</button>
          </Form>
        </section>
      )}
      <LoadState loaded={approvals}>
        {(answer) => (
          <>
            <div className="table-scroll">
              <table>
                <caption>Waiting for approval</caption>
                <thead><tr><th scope="col">Request</th><th scope="col">Kind</th><th scope="col">Merchant</th><th scope="col">Amount</th><th scope="col">Requested by</th><th scope="col">Expires</th><th scope="col">Actions</th></tr></thead>
                <tbody>
                  {answer.data.map((approval) => (
                    <tr key={approval.approval_id}>
                      <td><code>{approval.approval_id}</code></td>
                      <td>{approval.kind}</td>
                      <td><code>{approval.merchant_id}</code></td>
                      <td>{approvalAmount(approval)}{approval.terms['reason'] ? <span className="muted"> ({approval.terms['reason']})</span> : null}</td>
                      <td>{approval.requested_by}</td>
                      <td><DateTime iso={approval.expires_at} /></td>
                      <td>
                        <div className="actions">
                          <button type="button" onClick={() => decide(approval, true)} disabled={action.busy}>Approve</button>
                          <button type="button" className="danger" onClick={() => { action.clearError(); setRejecting(approval); }} disabled={action.busy}>Reject</button>
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
        <RejectDialog approval={rejecting} reason={rejectReason} onReason={setRejectReason} busy={action.busy} error={action.error} onReject={() => decide(rejecting, false)} onClose={closeReject} />
      )}
    </>
  );
}

function RejectDialog(props: { approval: Approval; reason: string; onReason: (value: string) => void; busy: boolean; error: ReturnType<typeof useAction>['error']; onReject: () => void; onClose: () => void }) {
  return (
    <DialogForm title={`Reject request ${props.approval.approval_id}`} onClose={props.onClose} onSubmit={props.onReject}>
      <TextField id="reject-reason" label="Reason" value={props.reason} onChange={props.onReason} required />
      {props.error && <ErrorAlert error={props.error} />}
      <div className="actions">
        <button type="submit" className="danger" disabled={props.busy}>Reject request</button>
        <button type="button" onClick={props.onClose}>Cancel</button>
      </div>
    </DialogForm>
  );
}

function DialogForm({ title, onClose, onSubmit, children }: { title: string; onClose: () => void; onSubmit: () => void; children: ReactNode }) {
  return (
    <Dialog title={title} onClose={onClose}>
      <Form label={title} onSubmit={onSubmit}>{children}</Form>
    </Dialog>
  );
}

function OperatorWithdrawalsView() {
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
    const body = { outcome: resolution.outcome as 'completed' | 'failed', reason: resolution.reason.trim(), ...(resolution.outcome === 'completed' ? { transaction_hash: resolution.hash.trim() } : {}) };
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
                <thead><tr><th scope="col">Merchant</th><th scope="col">Order</th><th scope="col">Amount</th><th scope="col">Network</th><th scope="col">Created</th><th scope="col">Actions</th></tr></thead>
                <tbody>
                  {answer.data.map((withdrawal) => (
                    <tr key={`${merchantOf(withdrawal)}/${withdrawal.order_id}`}>
                      <td><code>{merchantOf(withdrawal)}</code></td>
                      <td>{withdrawal.order_id}</td>
                      <td><Money amount={withdrawal.amount} currency={withdrawal.currency} /></td>
                      <td>{withdrawal.network}</td>
                      <td><DateTime iso={withdrawal.created_at} /></td>
                      <td>
                        <div className="actions">
                          <button type="button" onClick={() => reconcile(withdrawal)} disabled={action.busy}>Reconcile</button>
                          <button type="button" onClick={() => { action.clearError(); setResolving(withdrawal); }} disabled={action.busy}>Resolve</button>
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
          <SelectField label="Outcome" value={resolution.outcome} onChange={(value) => setResolution({ ...resolution, outcome: value })} options={[{ value: 'failed', label: 'Failed: return the frozen money' }, { value: 'completed', label: 'Completed: found on the network' }]} />
          {resolution.outcome === 'completed' && <TextField id="resolve-hash" label="Transaction hash" value={resolution.hash} onChange={(value) => setResolution({ ...resolution, hash: value })} required />}
          <TextField id="resolve-reason" label="Reason" value={resolution.reason} onChange={(value) => setResolution({ ...resolution, reason: value })} required />
          {action.error && <ErrorAlert error={action.error} />}
          <div className="actions">
            <button type="submit" disabled={action.busy}>Resolve withdrawal</button>
            <button type="button" onClick={closeResolve}>Cancel</button>
          </div>
        </DialogForm>
      )}
    </>
  );
}

function HealthView() {
  const health = useLoad(() => operatorApi.systemHealth(), []);
  return (
    <>
      <h1>System health</h1>
      <p><button type="button" onClick={health.reload}>Check again</button></p>
      <LoadState loaded={health}>
        {(answer) => (
          <>
            <table>
              <caption>Services, checked <DateTime iso={answer.checked_at} /></caption>
              <thead><tr><th scope="col">Service</th><th scope="col">Ready</th><th scope="col">Detail</th></tr></thead>
              <tbody>
                {answer.services.map((service) => (
                  <tr key={service.name}>
                    <th scope="row">{service.name}</th>
                    <td><span className={`badge ${service.ready ? 'badge-succeeded' : 'badge-failed'}`}>{service.ready ? 'Ready' : 'Not ready'}</span></td>
                    <td>{service.detail}</td>
                  </tr>
                ))}
              </tbody>
            </table>
            {answer.services.length === 0 && <Empty>No services reported.</Empty>}
          </>
        )}
      </LoadState>
    </>
  );
}

export const operatorRoutes: RouteDefinition[] = [
  { pattern: '/operator/merchants', navLabel: 'Merchants', render: () => <MerchantsView /> },
  { pattern: MERCHANT_PAGE, render: (params) => <OperatorMerchantView key={params['merchantId']} merchantId={params['merchantId'] ?? ''} /> },
  { pattern: '/operator/agents', navLabel: 'Agents', render: () => <AgentsView /> },
  { pattern: '/operator/disputes', navLabel: 'Disputes', render: () => <OperatorDisputesView /> },
  { pattern: DISPUTE_PAGE, render: (params) => <OperatorDisputeView key={`${params['merchantId']}/${params['disputeId']}`} merchantId={params['merchantId'] ?? ''} disputeId={params['disputeId'] ?? ''} /> },
  { pattern: '/operator/money', navLabel: 'Money', render: () => <MoneyView /> },
  { pattern: '/operator/withdrawals', navLabel: 'Withdrawals', render: () => <OperatorWithdrawalsView /> },
  { pattern: '/operator/health', navLabel: 'Health', render: () => <HealthView /> },
];
