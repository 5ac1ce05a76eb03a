#!/usr/bin/env node
/**
 * Operator and agent CLI over the back-office API (/backoffice/v1), for the local demo and for
 * operators' day-to-day work. The token comes from BACKOFFICE_TOKEN, or from the demo
 * credentials `npm start` saved in .local/dev (operator.json, agent.json; --as-agent picks it).
 *
 * Operator:
 *   npm run backoffice -- merchants create "Shop name" [callback_url]
 *   npm run backoffice -- methods get <merchant_id>
 *   npm run backoffice -- methods set <merchant_id> <entries.json>
 *   npm run backoffice -- agents create "<display name>" "<payment details>" bank_card:RU:RUB[,sbp:RU:RUB]
 *   npm run backoffice -- orders get <merchant_id> <order_id>
 *   npm run backoffice -- balances <merchant_id>
 *   npm run backoffice -- deposit <merchant_id> <currency> <amount> "<reason>"
 *   npm run backoffice -- entries <merchant_id> [currency]
 *   npm run backoffice -- reconciliation <merchant_id> <from ISO time> <to ISO time>   (CSV on stdout)
 *   npm run backoffice -- merchants get <merchant_id>          (profile, callback URL disabled or not)
 *   npm run backoffice -- callbacks <merchant_id> <order_id>   (delivery log with every attempt)
 *   npm run backoffice -- callbacks event <event_id>
 *   npm run backoffice -- callbacks redeliver <delivery_id>
 *   npm run backoffice -- callbacks disabled [merchant_id]     (endpoints a 410 disabled)
 *   npm run backoffice -- callbacks enable <merchant_id> <url>
 *   npm run backoffice -- webhook-secret rotate <merchant_id> [overlap_hours]   (new secret shown once)
 *   npm run backoffice -- api-secret rotate <merchant_id> [overlap_hours]   (new secret shown once; 0 ends a running overlap now)
 *   npm run backoffice -- merchants suspend|reinstate <merchant_id> "<reason>"
 *   npm run backoffice -- operators list                      (every operator credential: expiry, revocation; never a token)
 *   npm run backoffice -- operators create "<name>" [lifetime_days]   (token shown once)
 *   npm run backoffice -- operators revoke <credential_id>
 *   npm run backoffice -- audit [actor_credential_id] [merchant_id]   (the back-office audit trail, newest first)
 *   npm run backoffice -- reveals [merchant_id] [order_id]   (who saw which full account number, when)
 *   npm run backoffice -- convert <merchant_id> <conversion_id> <from_currency> <to_currency> <amount> <rate> "<reason>"
 *   npm run backoffice -- approvals pending|approved|rejected|expired [merchant_id]   (conversions and deposit moves above the threshold)
 *   npm run backoffice -- approvals approve <approval_id>   (a second operator: the money moves now, once)
 *   npm run backoffice -- approvals reject <approval_id> "<reason>"
 *   npm run backoffice -- withdrawals stuck [older_than_seconds]
 *   npm run backoffice -- withdrawals get <merchant_id> <order_id>
 *   npm run backoffice -- withdrawals fail <merchant_id> <order_id> "<reason>"   (only a queued one: nothing sent yet)
 *   npm run backoffice -- withdrawals complete <merchant_id> <order_id> <transaction_hash> "<reason>"
 *   npm run backoffice -- withdrawals reconcile <merchant_id> <order_id>   (a stuck "sending" one: the network's answer decides)
 *   npm run backoffice -- disputes accept|reject <merchant_id> <dispute_id> ["<reason>"]
 *   npm run backoffice -- disputes receipt <merchant_id> <dispute_id> [out_file]   (the merchant's receipt; logged)
 *   npm run backoffice -- disputes downloads [merchant_id] [dispute_id]   (who downloaded which receipt, when)
 * Agent (--as-agent):
 *   npm run backoffice -- --as-agent orders [available]
 *   npm run backoffice -- --as-agent take|confirm <merchant_id> <order_id>
 *   npm run backoffice -- --as-agent decline <merchant_id> <order_id> "<reason>"
 *   npm run backoffice -- --as-agent account-number <merchant_id> <order_id>   (a payout you took; recorded)
 *   npm run backoffice -- --as-agent complete <merchant_id> <order_id> <receipt.pdf|png|jpg>
 *   npm run backoffice -- --as-agent disputes accept|reject <merchant_id> <dispute_id> ["<reason>"]   (disputes on your orders)
 *   npm run backoffice -- --as-agent disputes receipt <merchant_id> <dispute_id> [out_file]   (logged)
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from './cli-arguments.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { asAgent, args } = parseArguments(process.argv.slice(2));

/**
 * `--as-agent` anywhere, the rest positional. A negative amount (a debit deposit adjustment,
 * `-500`) would look like a short flag to parseArgs, so such numbers are set aside before it
 * runs and put back in their place after.
 */
function parseArguments(argv) {
  const negativeNumber = /^-\d+(\.\d+)?$/;
  const standIn = (index) => `\u0000${index}`;
  const masked = argv.map((arg, index) => (negativeNumber.test(arg) ? standIn(index) : arg));
  const { values, positionals } = parseCommandLine(
    { args: masked, options: { 'as-agent': { type: 'boolean', default: false } }, allowPositionals: true },
    'usage: npm run backoffice -- [--as-agent] <command> … (see tools/backoffice.mjs)',
  );
  return { asAgent: values['as-agent'], args: positionals.map((arg) => (arg.startsWith('\u0000') ? argv[Number(arg.slice(1))] : arg)) };
}

function demoCredential(file) {
  const path = join(root, '.local/dev', file);
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
}

const demo = demoCredential(asAgent ? 'agent.json' : 'operator.json');
const token = process.env.BACKOFFICE_TOKEN ?? demo.token;
const baseUrl = process.env.MP_BASE_URL ?? 'http://127.0.0.1:3000';
if (!token) {
  console.error('No token: set BACKOFFICE_TOKEN, or run `npm start` to create the demo operator and agent.');
  process.exit(2);
}

async function call(method, path, body, headers = {}) {
  const isFile = Buffer.isBuffer(body);
  const response = await fetch(`${baseUrl}/backoffice/v1${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': isFile ? 'application/octet-stream' : 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : isFile ? body : JSON.stringify(body),
  });
  const text = await response.text();
  if (response.ok && (response.headers.get('content-type') ?? '').startsWith('text/csv')) return { csv: text };
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = text;
  }
  if (!response.ok) {
    console.error(`HTTP ${response.status}`, JSON.stringify(parsed, null, 2));
    process.exit(1);
  }
  return parsed;
}

/** A file answer (a dispute receipt): saved under its own name, or `out_file`; errors as in `call`. */
async function download(path, outFile) {
  const response = await fetch(`${baseUrl}/backoffice/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok) {
    console.error(`HTTP ${response.status}`, await response.text());
    process.exit(1);
  }
  const named = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  const file = outFile ?? basename(named ?? 'receipt');
  writeFileSync(file, Buffer.from(await response.arrayBuffer()));
  return { saved: file, content_type: response.headers.get('content-type') };
}

const print = (value) => console.log(JSON.stringify(value, null, 2));
const [command, sub, ...rest] = args;
const order = (merchantId, orderId) => `/agent/orders/${encodeURIComponent(merchantId)}/${encodeURIComponent(orderId)}`;

/** Accepting settles the order for the disputed amount; rejecting restores the order's own state. */
const reviewDispute = (prefix, decision) => () =>
  call('POST', `${prefix}/disputes/${encodeURIComponent(rest[0] ?? '')}/${encodeURIComponent(rest[1] ?? '')}/review`, {
    decision,
    ...(rest[2] ? { reason: rest[2] } : {}),
  });

/** Every download is recorded for operators (who, when, which dispute and receipt). */
const disputeReceipt = (prefix) => () =>
  download(`${prefix}/disputes/${encodeURIComponent(rest[0] ?? '')}/${encodeURIComponent(rest[1] ?? '')}/receipt`, rest[2]);

/** The overlap as a JSON number (the API reads number literals); none: the configured default. */
const overlapBody = (hours) => (hours ? JSON.parse(`{"overlap_hours": ${Number(hours)}}`) : {});

const operatorCommands = {
  'disputes accept': reviewDispute('', 'ACCEPTED'),
  'disputes reject': reviewDispute('', 'REJECTED'),
  'disputes receipt': disputeReceipt(''),
  'disputes downloads': () =>
    call(
      'GET',
      `/disputes/receipt-downloads?${new URLSearchParams({ ...(rest[0] ? { merchant_id: rest[0] } : {}), ...(rest[1] ? { dispute_id: rest[1] } : {}) })}`,
    ),
  'merchants create': () => call('POST', '/merchants', { name: rest[0], ...(rest[1] ? { default_callback_url: rest[1] } : {}) }),
  'merchants get': () => call('GET', `/merchants/${encodeURIComponent(rest[0])}`),
  'callbacks event': () => call('GET', `/callbacks/deliveries?event_id=${encodeURIComponent(rest[0])}`),
  'callbacks redeliver': () => call('POST', `/callbacks/deliveries/${encodeURIComponent(rest[0])}/redeliver`, {}),
  'callbacks disabled': () => call('GET', `/callbacks/endpoints/disabled${rest[0] ? `?merchant_id=${encodeURIComponent(rest[0])}` : ''}`),
  'callbacks enable': () => call('POST', `/merchants/${encodeURIComponent(rest[0])}/callback-endpoints/enable`, { url: rest[1] }),
  callbacks: () => call('GET', `/callbacks/deliveries?merchant_id=${encodeURIComponent(sub)}&order_id=${encodeURIComponent(rest[0] ?? '')}`),
  'webhook-secret rotate': () => call('POST', `/merchants/${encodeURIComponent(rest[0])}/webhook-secret/rotate`, overlapBody(rest[1])),
  'api-secret rotate': () => call('POST', `/merchants/${encodeURIComponent(rest[0])}/api-secret/rotate`, overlapBody(rest[1])),
  'merchants suspend': () => call('POST', `/merchants/${encodeURIComponent(rest[0])}/suspend`, { reason: rest[1] ?? '' }),
  'merchants reinstate': () => call('POST', `/merchants/${encodeURIComponent(rest[0])}/reinstate`, { reason: rest[1] ?? '' }),
  'operators list': () => call('GET', '/operator-credentials'),
  'operators create': () =>
    call(
      'POST',
      '/operator-credentials',
      rest[1] ? JSON.parse(`{"name": ${JSON.stringify(rest[0] ?? '')}, "lifetime_days": ${Number(rest[1])}}`) : { name: rest[0] },
    ),
  'operators revoke': () => call('POST', `/operator-credentials/${encodeURIComponent(rest[0] ?? '')}/revoke`),
  audit: () => call('GET', `/audit?${new URLSearchParams({ ...(sub ? { actor_credential_id: sub } : {}), ...(rest[0] ? { merchant_id: rest[0] } : {}) })}`),
  'methods get': () => call('GET', `/merchants/${rest[0]}/methods`),
  'methods set': () => call('PUT', `/merchants/${rest[0]}/methods`, { entries: JSON.parse(readFileSync(rest[1], 'utf8')) }),
  'agents create': () =>
    call('POST', '/agents', {
      display_name: rest[0],
      payment_details: rest[1],
      serves: (rest[2] ?? '')
        .split(',')
        .filter(Boolean)
        .map((area) => {
          const [method, country, currency] = area.split(':');
          return { method, country, currency };
        }),
    }),
  'orders get': () => call('GET', `/orders/${rest[0]}/${encodeURIComponent(rest[1])}`),
  balances: () => call('GET', `/merchants/${sub}/balances`),
  entries: () => call('GET', `/merchants/${sub}/ledger/entries${rest[0] ? `?currency=${encodeURIComponent(rest[0])}` : ''}`),
  reconciliation: () =>
    call('GET', `/merchants/${sub}/ledger/reconciliation.csv?from=${encodeURIComponent(rest[0] ?? '')}&to=${encodeURIComponent(rest[1] ?? '')}`),
  reveals: () =>
    call('GET', `/account-number-reveals?${new URLSearchParams({ ...(sub ? { merchant_id: sub } : {}), ...(rest[0] ? { order_id: rest[0] } : {}) })}`),
  deposit: () =>
    call(
      'POST',
      `/merchants/${sub}/deposit-adjustments`,
      JSON.parse(`{"currency": ${JSON.stringify(rest[0])}, "amount": ${Number(rest[1])}, "reason": ${JSON.stringify(rest[2] ?? '')}}`),
    ),
  // The amount goes into the JSON as typed, so its decimals are exact (the API reads the JSON text).
  convert: () => {
    const [conversionId, fromCurrency, toCurrency, amount, rate, reason] = rest;
    if (!/^\d+(\.\d+)?$/.test(amount ?? '')) throw new Error('amount must be a decimal number, e.g. 101010.10');
    return call(
      'POST',
      `/merchants/${sub}/conversions`,
      JSON.parse(
        `{"conversion_id": ${JSON.stringify(conversionId)}, "from_currency": ${JSON.stringify(fromCurrency)}, "to_currency": ${JSON.stringify(toCurrency)}, "amount": ${amount}, "rate": ${JSON.stringify(rate)}, "reason": ${JSON.stringify(reason ?? '')}}`,
      ),
    );
  },
  ...Object.fromEntries(
    ['pending', 'approved', 'rejected', 'expired'].map((status) => [
      `approvals ${status}`,
      () => call('GET', `/approvals?${new URLSearchParams({ status, ...(rest[0] ? { merchant_id: rest[0] } : {}) })}`),
    ]),
  ),
  'approvals approve': () => call('POST', `/approvals/${encodeURIComponent(rest[0] ?? '')}/approve`, {}),
  'approvals reject': () => call('POST', `/approvals/${encodeURIComponent(rest[0] ?? '')}/reject`, { reason: rest[1] ?? '' }),
  'withdrawals stuck': () => call('GET', `/withdrawals/stuck${rest[0] ? `?older_than_seconds=${encodeURIComponent(rest[0])}` : ''}`),
  'withdrawals get': () => call('GET', `/withdrawals/${rest[0]}/${encodeURIComponent(rest[1])}`),
  'withdrawals fail': () => call('POST', `/withdrawals/${rest[0]}/${encodeURIComponent(rest[1])}/resolve`, { outcome: 'failed', reason: rest[2] ?? '' }),
  'withdrawals complete': () =>
    call('POST', `/withdrawals/${rest[0]}/${encodeURIComponent(rest[1])}/resolve`, { outcome: 'completed', transaction_hash: rest[2], reason: rest[3] ?? '' }),
  'withdrawals reconcile': () => call('POST', `/withdrawals/${rest[0]}/${encodeURIComponent(rest[1])}/reconcile`, {}),
};

const agentCommands = {
  'disputes accept': reviewDispute('/agent', 'ACCEPTED'),
  'disputes reject': reviewDispute('/agent', 'REJECTED'),
  'disputes receipt': disputeReceipt('/agent'),
  orders: () => call('GET', `/agent/orders${sub === 'available' ? '?scope=available' : ''}`),
  take: () => call('POST', `${order(sub, rest[0])}/take`, {}),
  confirm: () => call('POST', `${order(sub, rest[0])}/confirm`, {}),
  'account-number': () => call('POST', `${order(sub, rest[0])}/account-number`, {}),
  decline: () => call('POST', `${order(sub, rest[0])}/decline`, { reason: rest[1] ?? 'declined' }),
  complete: async () => {
    const receipt = await call('POST', `${order(sub, rest[0])}/receipts`, readFileSync(rest[1]), { 'x-file-name': basename(rest[1]) });
    return call('POST', `${order(sub, rest[0])}/complete`, { receipt_id: receipt.receipt_id });
  },
};

const table = asAgent ? agentCommands : operatorCommands;
const run = table[`${command} ${sub}`] ?? table[command];
if (!run) {
  console.error(`unknown command; see the usage at the top of tools/backoffice.mjs`);
  process.exit(2);
}
const result = await run();
if (result && typeof result.csv === 'string') process.stdout.write(result.csv);
else print(result);
