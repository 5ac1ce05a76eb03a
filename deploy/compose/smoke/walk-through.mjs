// Step 3 of the compose smoke test: the first operator, the demo walk-through and the console.
import { SmokeFailure, check, say, sleep } from './common.mjs';
import { availableMinor, backofficeCall, merchantClient, toMinor } from './merchant.mjs';

/** The payer opens the payment details (which assigns the agent), then the agent confirms the money arrived. */
export async function payAndConfirm(baseUrl, demo, orderId, redirectUrl) {
  const detailsUrl = `${redirectUrl.replace(/^https?:\/\/[^/]+/, baseUrl)}/details`;
  const path = `/agent/orders/${encodeURIComponent(demo.merchant_id)}/${encodeURIComponent(orderId)}/confirm`;
  let last = null;
  for (let attempt = 0; attempt < 60; attempt += 1) {
    try {
      const details = await fetch(detailsUrl, { method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(30_000) });
      last = `payer details: HTTP ${details.status}`;
      if (details.status === 303) {
        const confirmed = await backofficeCall(baseUrl, demo.agent_token, 'POST', path, {});
        last = `agent confirm: HTTP ${confirmed.status} ${JSON.stringify(confirmed.body)}`;
        if (confirmed.status === 200) return;
      }
    } catch (error) {
      last = String(error);
    }
    // The order's event is still on its way to the agent's queue, or a replica is taking over.
    await sleep(500);
  }
  throw new SmokeFailure(`${orderId} could not be paid and confirmed (${last})`);
}

export async function waitForStatus(request, orderId, wanted, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await request('GET', `/v2/payments/status/${orderId}`);
    if (read.status === 200 && read.body.status === wanted) return read.body;
    if (Date.now() > deadline)
      throw new SmokeFailure(`${orderId} is ${read.status === 200 ? read.body.status : `HTTP ${read.status}`}, not ${wanted}, after ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}

export async function waitFor(condition, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new SmokeFailure(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

export async function walkThrough({ baseUrl, demo, sink, sinkUrl }) {
  const request = merchantClient(baseUrl, demo);
  const before = await request('GET', '/v2/merchant/balances');
  check(before.status === 200, `balances: HTTP ${before.status} ${JSON.stringify(before.body)}`);
  const orderId = `smoke-walk-${Date.now().toString(36)}`;
  const created = await request('POST', '/v2/payments/incoming', { order_id: orderId, amount: 1500.5, currency: 'RUB', country: 'RU', callback_url: sinkUrl });
  check(created.status === 201 && created.body.redirect_url, `pay-in: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  const payerPage = await fetch(created.body.redirect_url.replace(/^https?:\/\/[^/]+/, baseUrl));
  check(payerPage.status === 200, `payer page ${created.body.redirect_url}: HTTP ${payerPage.status}`);
  await payAndConfirm(baseUrl, demo, orderId, created.body.redirect_url);
  const order = await waitForStatus(request, orderId, 'SUCCEEDED');
  await waitFor(
    () => sink.verified.some((callback) => JSON.stringify(callback.body).includes(orderId) && JSON.stringify(callback.body).includes('SUCCEEDED')),
    `the verified SUCCEEDED callback of ${orderId}`,
    60_000,
  );
  const after = await request('GET', '/v2/merchant/balances');
  const moved = availableMinor(after.body, 'RUB') - availableMinor(before.body, 'RUB');
  check(
    moved === toMinor(order.amount) - toMinor(order.fee),
    `the balance moved by ${moved}, expected ${toMinor(order.amount) - toMinor(order.fee)} (amount ${order.amount}, fee ${order.fee})`,
  );
  say(`walk-through: pay-in ${orderId} completed, callback verified, balance +${moved} minor units (RUB)`);
}

/**
 * The console the gateway image serves: the page and its bundle under the console's CSP, and a
 * sign-in (the demo agent's token) whose session cookie reads the agent's queue through the relay.
 */
export async function consoleSignIn({ baseUrl, demo }) {
  const page = await fetch(`${baseUrl}/console/`);
  const html = await page.text();
  check(
    page.status === 200 && /script-src 'self'/.test(page.headers.get('content-security-policy') ?? ''),
    `/console/: HTTP ${page.status}, CSP ${page.headers.get('content-security-policy')}`,
  );
  const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
  check(script !== undefined, `/console/ names no script: ${html.slice(0, 300)}`);
  const bundle = await fetch(new URL(script, `${baseUrl}/console/`));
  check(bundle.status === 200 && (await bundle.text()).length > 10_000, `the console's script ${script}: HTTP ${bundle.status}`);
  const login = await fetch(`${baseUrl}/console/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ role: 'agent', credential: demo.agent_token }),
  });
  const session = await login.json().catch(() => null);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  check(
    login.status === 200 && session?.role === 'agent' && cookie.startsWith('__Host-console_session='),
    `console sign-in: HTTP ${login.status} ${JSON.stringify(session)}`,
  );
  const queue = await fetch(`${baseUrl}/console/api/agent/orders`, { headers: { cookie } });
  const orders = await queue.json().catch(() => null);
  check(queue.status === 200 && Array.isArray(orders?.data), `the agent's queue through the console: HTTP ${queue.status} ${JSON.stringify(orders)}`);
  say(`console: page and bundle served under its CSP; the demo agent signed in and read ${orders.data.length} order(s) of its queue`);
}

/**
 * The first operator, as a real deployment makes it (docs/operations/operators.md): the ops
 * image's bootstrap command through `run --rm`, whose one output line holds the credential; a
 * second run is refused with exit 3 and prints none. The credential then signs in to the console
 * (role operator) and, through the console's back-office route, lists the operator credentials.
 */
export async function bootstrapFirstOperator({ stack, baseUrl }) {
  const bootstrap = (name) => stack.withProfiles(['run', '--rm', '-T', 'bootstrap-operator', '--name', name, '--json'], { quiet: true, allowFailure: true });
  const first = await bootstrap('Smoke operator');
  check(first.code === 0, `bootstrap-operator exited with ${first.code}:\n${first.output}`);
  const operator = JSON.parse(first.output.trim().split('\n').pop());
  check(/^bo_/.test(operator.token) && /^op_/.test(operator.operator_id), `bootstrap-operator printed no credential: ${first.output}`);
  const second = await bootstrap('Second try');
  check(
    second.code === 3 && /refused/.test(second.output) && !/bo_[A-Za-z0-9_-]{20}/.test(second.output),
    `a second bootstrap-operator was not refused (exit ${second.code}):\n${second.output}`,
  );
  const login = await fetch(`${baseUrl}/console/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: baseUrl },
    body: JSON.stringify({ role: 'operator', credential: operator.token }),
  });
  const session = await login.json().catch(() => null);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  check(
    login.status === 200 && session?.role === 'operator' && cookie.startsWith('__Host-console_session='),
    `console sign-in as the first operator: HTTP ${login.status} ${JSON.stringify(session)}`,
  );
  const credentials = await fetch(`${baseUrl}/console/api/operator/operator-credentials`, { headers: { cookie } });
  const listed = await credentials.json().catch(() => null);
  const own = listed?.data?.find?.((credential) => credential.credential_id === operator.credential_id);
  check(
    credentials.status === 200 && own?.operator_id === operator.operator_id && own?.may_issue_operator_credentials === true,
    `the back office through the console as the first operator: HTTP ${credentials.status} ${JSON.stringify(listed)}`,
  );
  say(
    `first operator ${operator.operator_id} made by bootstrap-operator (a second run refused with exit 3), signed in to the console, listed ${listed.data.length} operator credential(s) through the back office`,
  );
}
