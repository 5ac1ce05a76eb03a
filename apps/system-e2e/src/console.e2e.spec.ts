/**
 * Goal: the console (docs/operations/console.md) does for people what the APIs do for programs, in a real browser:
 * - a merchant signs in with a console key and finds an order, its timeline and its callbacks;
 * - a payment agent, on a phone, confirms a pay-in and completes a payout with a receipt file;
 * - an operator reviews a dispute with its receipt shown, and books a top-up that a second
 *   operator approves;
 * - roles are isolated: an agent reaches no merchant or operator data, a merchant only its own;
 * - every main view passes axe-core with no serious or critical violation, and is saved as a
 *   screenshot in .local/test-logs/ (console-*.png) for a person to look at.
 * Method: Debian's Chromium (headless) drives the console the real gateway serves, over the real
 * services, Kafka and PostgreSQL, with one system for the whole file. Each flow checks its
 * outcome through the APIs, not only on the page.
 */
import { readFileSync } from 'node:fs';
import {
  CallbackReceiver,
  createOperator,
  launchBrowser,
  openPhonePage,
  registerAgent,
  saveScreenshot,
  SignedClient,
  SystemUnderTest,
  type BackofficeClient,
  type RegisteredAgent,
} from '@mp/shared-testing';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { eventually } from '@mp/shared-testing';
import { disputesKnow } from './disputable-orders';
import { incomingPayment, newOrderId } from './fixtures';

/** axe-core's browser bundle, evaluated in each page (the console's CSP allows no injected script tag). */
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('dispute evidence')]);
const DESKTOP = { width: 1280, height: 900 } as const;
const UI_TIMEOUT_MS = 20_000;

type Role = 'merchant' | 'agent' | 'operator';
const ROLE_LABELS: Record<Role, string> = { merchant: 'Merchant', agent: 'Payment agent', operator: 'Operator' };

describe('the console in a browser', () => {
  let system: SystemUnderTest;
  let alice: BackofficeClient;
  let bob: BackofficeClient;
  let agent: RegisteredAgent;
  let shop: SignedClient;
  let otherShop: SignedClient;
  let consoleKey: string;
  let receiver: CallbackReceiver;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    // A deposit adjustment above 1,000.00 RUB waits for a second operator.
    system = await SystemUnderTest.start({ env: { gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true' }, ledger: { LEDGER_APPROVAL_THRESHOLDS: 'RUB:100000' } } });
    [alice, bob] = [await createOperator(system, 'Alice'), await createOperator(system, 'Bob')];
    agent = await registerAgent(system, alice, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    const created = await alice.request('POST', '/backoffice/v1/merchants', { name: 'Console shop' });
    expect(created.status).toBe(201);
    shop = new SignedClient(system.gatewayUrl, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret });
    receiver = await CallbackReceiver.start({ secrets: [created.body.webhook_secret] });
    expect((await shop.request({ method: 'PATCH', path: '/v2/merchant', body: { default_callback_url: receiver.url('/default') } })).status).toBe(200);
    otherShop = await system.createClient('Someone else');
    const key = await alice.request('POST', `/backoffice/v1/merchants/${shop.credentials.merchantId}/console-keys`, {});
    expect(key.status).toBe(201);
    consoleKey = key.body.console_key;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser?.close();
    await receiver?.stop();
    await system?.stop();
  });

  afterEach(() => {
    // A script error or a CSP refusal fails the test that caused it, not just looks odd.
    expect(problems.splice(0)).toEqual([]);
  });

  async function newPage(phone = false): Promise<Page> {
    const page = phone ? await openPhonePage(browser) : await (await browser.newContext({ viewport: DESKTOP })).newPage();
    contexts.push(page.context());
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) problems.push(`CSP: ${message.text()}`);
    });
    return page;
  }

  async function signIn(page: Page, role: Role, credential: string): Promise<void> {
    await page.goto(`${system.gatewayUrl}/console/`);
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    await page.getByRole('radio', { name: ROLE_LABELS[role] }).check();
    await page.getByLabel('Credential').fill(credential);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
  }

  /** Opens a view from the main navigation and waits for its heading. */
  async function openView(page: Page, link: string, heading: string | RegExp): Promise<void> {
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: link, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    // Every part of the view loaded (a view may load several things at once).
    // (Polled from here: a predicate evaluated in the page would be eval, which the console's CSP refuses.)
    await eventually(
      () => page.getByRole('status').filter({ hasText: 'Loading…' }).count(),
      (loading) => loading === 0,
      `${heading} loaded`,
      UI_TIMEOUT_MS,
    );
  }

  /** axe-core on the page as it is: no serious or critical violation; the screenshot saved either way. */
  async function checkView(page: Page, name: string): Promise<void> {
    await saveScreenshot(page, `console-${name}`);
    await page.evaluate(AXE_SOURCE);
    // Written as page source: it runs in the browser, where this file's Node typings do not apply.
    const violations: Array<{ id: string; impact: string | null; targets: string[] }> = await page.evaluate(`
      axe.run(document, { resultTypes: ['violations'] }).then((result) =>
        result.violations.map((violation) => ({ id: violation.id, impact: violation.impact, targets: violation.nodes.slice(0, 3).map((node) => node.target.join(' ')) })))`);
    expect({ view: name, serious: violations.filter((violation) => violation.impact === 'serious' || violation.impact === 'critical') }).toEqual({
      view: name,
      serious: [],
    });
  }

  /** What the console's own API answers this page's session (cookie and CSRF token as the app sends them). */
  const consoleStatus = (page: Page, path: string, method = 'GET'): Promise<number> =>
    page.evaluate(`(async () => {
      const session = await (await fetch('/console/api/session')).json();
      const init = { method: ${JSON.stringify(method)}, headers: { 'x-csrf-token': session.csrf_token ?? '', 'content-type': 'application/json' } };
      if (init.method !== 'GET') init.body = '{}';
      return (await fetch(${JSON.stringify(path)}, init)).status;
    })()`);

  /** A pay-in whose payer asked for the payment details (the agent is assigned) and reported paying. */
  async function assignedPayIn(label: string, amount = 1000, extra: Record<string, unknown> = {}): Promise<string> {
    const orderId = newOrderId(label);
    const created = await shop.post('/v2/payments/incoming', incomingPayment(orderId, { amount, callback_url: receiver.url('/orders'), ...extra }));
    expect(created.status).toBe(201);
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${created.body.redirect_url}/paid`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    return orderId;
  }

  const statusOf = async (orderId: string) => (await shop.get(`/v2/payments/status/${orderId}`)).body.status as string;

  it('lets a merchant find an order, its timeline and its callbacks, on its own data only', async () => {
    const orderId = await assignedPayIn('console-order', 1000, { metadata: { cart_id: 'C-console', note: '<b>not markup</b>' } });
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${shop.credentials.merchantId}/${orderId}/confirm`, {})).status).toBe(200);
    await eventually(
      () => receiver.bodies().filter((body) => body.data.order_id === orderId),
      (bodies) => bodies.length === 1,
      'the pay-in callback',
      30_000,
    );
    const foreign = newOrderId('foreign');
    expect((await otherShop.post('/v2/payments/incoming', incomingPayment(foreign))).status).toBe(201);

    const page = await newPage();
    await signIn(page, 'merchant', consoleKey);
    await openView(page, 'Balances', 'Balances');
    await page.getByRole('img', { name: /^Settlement/ }).waitFor();
    await checkView(page, 'merchant-balances');

    await openView(page, 'Orders', 'Orders');
    await page.getByLabel('Order ID').fill(orderId);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('link', { name: orderId }).click();
    await page.getByRole('heading', { level: 1, name: `Order ${orderId}` }).waitFor();
    await page.getByRole('heading', { name: 'Timeline' }).waitFor();
    const callbacks = page.locator('table', { has: page.locator('caption', { hasText: 'Callbacks' }) });
    await callbacks.getByText('payment.succeeded').waitFor();
    // The merchant's metadata, key by key in alphabetical order, as text (never markup).
    const metadata = page.getByTestId('metadata');
    await metadata.getByText('C-console').waitFor();
    expect(await metadata.locator('dt').allTextContents()).toEqual(['cart_id', 'note']);
    expect(await metadata.locator('dd').allTextContents()).toEqual(['C-console', '<b>not markup</b>']);
    await checkView(page, 'merchant-order');

    for (const [link, heading, name] of [
      ['Disputes', 'Disputes', 'merchant-disputes'],
      ['Withdrawals', 'Withdrawals', 'merchant-withdrawals'],
      ['Webhooks', 'Webhook deliveries', 'merchant-webhooks'],
      ['Reports', 'Reports', 'merchant-reports'],
      ['Credentials', 'Credentials', 'merchant-credentials'],
    ] as const) {
      await openView(page, link, heading);
      await checkView(page, name);
    }

    // Test mode: once an operator issued test credentials, the same views show the sandbox merchant.
    expect((await alice.request('POST', `/backoffice/v1/merchants/${shop.credentials.merchantId}/test-credentials`, {})).status).toBe(201);
    await page.getByRole('group', { name: 'Mode' }).getByRole('button', { name: 'Test' }).click();
    await page.getByRole('note').filter({ hasText: 'Test mode' }).waitFor();
    await page.getByText(`test_${shop.credentials.merchantId}`).waitFor();
    await checkView(page, 'merchant-test-mode');
    await page.getByRole('group', { name: 'Mode' }).getByRole('button', { name: 'Live' }).click();
    await page.getByText(shop.credentials.merchantId, { exact: true }).waitFor();

    // Its own orders only: another merchant's order is not found, and the session is its own.
    expect(await consoleStatus(page, `/console/api/merchant/v2/payments/status/${orderId}`)).toBe(200);
    expect(await consoleStatus(page, `/console/api/merchant/v2/payments/status/${foreign}`)).toBe(404);
    expect(await consoleStatus(page, '/console/api/operator/approvals')).toBe(403);
    expect(await consoleStatus(page, '/console/api/agent/orders')).toBe(403);
    // The page never held the API secret: not in the document, not in storage.
    const pageText: string = await page.evaluate(
      `document.documentElement.outerHTML + JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + document.cookie`,
    );
    expect(pageText).not.toContain(shop.credentials.apiSecret);
  });

  it('lets an agent on a phone confirm a pay-in and complete a payout with a receipt file, and nothing else', async () => {
    const payIn = await assignedPayIn('console-confirm', 5000);
    const page = await newPage(true);
    await signIn(page, 'agent', agent.client.token);
    await openView(page, 'Queue', 'Queue');
    await page
      .getByRole('row', { name: new RegExp(payIn) })
      .getByRole('button', { name: 'Confirm' })
      .click();
    await eventually(
      () => statusOf(payIn),
      (status) => status === 'SUCCEEDED',
      'the pay-in confirmed',
      30_000,
    );
    await eventually(
      async () => (await shop.get('/v2/merchant/balances')).body.settlement.find((entry: { currency: string }) => entry.currency === 'RUB')?.available ?? 0,
      (available) => available >= 2000,
      'the balance',
      30_000,
    );

    const payout = newOrderId('console-payout');
    expect(
      (
        await shop.post('/v2/payments/outgoing', {
          ...incomingPayment(payout, { amount: 1000, callback_url: receiver.url('/orders') }),
          method: 'bank_card',
          account_number: '40817810099910004312',
        })
      ).status,
    ).toBe(201);
    await openView(page, 'Queue', 'Queue');
    // Payouts wait to be taken; taken, they are the agent's to complete.
    await page.getByRole('button', { name: 'Payouts to take' }).click();
    await page
      .getByRole('row', { name: new RegExp(payout) })
      .getByRole('button', { name: 'Take' })
      .click();
    await page
      .getByRole('status')
      .filter({ hasText: `Taken: order ${payout}` })
      .waitFor();
    await page.getByRole('button', { name: 'My orders' }).click();
    await page
      .getByRole('row', { name: new RegExp(payout) })
      .getByRole('button', { name: 'Complete' })
      .click();
    await page
      .getByLabel('Receipt file')
      .setInputFiles({ name: 'transfer.pdf', mimeType: 'application/pdf', buffer: Buffer.from('%PDF-1.7 transfer confirmation') });
    await page.getByRole('button', { name: 'Upload and complete' }).click();
    await eventually(
      () => statusOf(payout),
      (status) => status === 'SUCCEEDED',
      'the payout completed',
      30_000,
    );
    const receipts = await shop.get(`/v2/payments/${payout}/receipts`);
    expect(JSON.stringify(receipts.body)).toContain('transfer.pdf');

    await openView(page, 'Queue', 'Queue');
    // A phone screen: nothing wider than the viewport.
    expect(await page.evaluate(`document.documentElement.scrollWidth <= window.innerWidth`)).toBe(true);
    await checkView(page, 'agent-queue');

    expect(await consoleStatus(page, '/console/api/merchant/v2/merchant')).toBe(403);
    expect(await consoleStatus(page, `/console/api/operator/merchants/${shop.credentials.merchantId}`)).toBe(403);
    expect(await consoleStatus(page, '/console/api/operator/approvals/none/approve', 'POST')).toBe(403);
  });

  it('lets an operator review a dispute with its receipt and book a top-up that a second operator approves', async () => {
    const declined = await assignedPayIn('console-dispute');
    expect(
      (await agent.client.request('POST', `/backoffice/v1/agent/orders/${shop.credentials.merchantId}/${declined}/decline`, { reason: 'no money arrived' }))
        .status,
    ).toBe(200);
    await disputesKnow(system, shop, declined, true);
    const opened = await shop.post('/v2/disputes', {
      order_id: declined,
      comment: 'The payer paid',
      receipt: { file_name: 'transfer.png', content_type: 'image/png', content_base64: PNG.toString('base64') },
    });
    expect(opened.status).toBe(201);
    const disputeId: string = opened.body.dispute_id;

    const page = await newPage();
    await signIn(page, 'operator', alice.token);
    await openView(page, 'Disputes', 'Disputes');
    await checkView(page, 'operator-disputes');
    // The review queue lists every merchant's disputes: this one is there, with its merchant.
    await page
      .getByRole('row', { name: new RegExp(`${disputeId}.*${shop.credentials.merchantId}`) })
      .getByRole('link', { name: disputeId })
      .click();
    await page.getByRole('heading', { level: 1, name: `Dispute ${disputeId}` }).waitFor();
    await page.getByText('The payer paid').waitFor();
    await page
      .getByRole('img', { name: /receipt/i })
      .or(page.getByRole('link', { name: 'Download receipt' }))
      .first()
      .waitFor();
    await page.getByRole('button', { name: 'Accept' }).click();
    await eventually(
      async () => (await shop.get(`/v2/disputes/${disputeId}`)).body.status,
      (status) => status === 'ACCEPTED',
      'the dispute accepted',
      30_000,
    );

    await openView(page, 'Money', 'Deposits and conversions');
    await page.getByLabel('Merchant ID', { exact: true }).fill(shop.credentials.merchantId);
    await page.getByLabel('Currency', { exact: true }).fill('RUB');
    await page.getByLabel('Amount', { exact: true }).fill('5000');
    await page.getByLabel('Reason', { exact: true }).fill('security deposit wired');
    await page.getByRole('button', { name: 'Submit for approval' }).click();
    const waiting = async () =>
      (await bob.request('GET', `/backoffice/v1/approvals?merchant_id=${shop.credentials.merchantId}`)).body.data as Array<{ approval_id: string }>;
    const [approval] = await eventually(waiting, (pending) => pending.length === 1, 'the top-up waiting for approval');
    const deposit = async () => (await bob.request('GET', `/backoffice/v1/merchants/${shop.credentials.merchantId}/balances`)).body.deposit;
    expect(await deposit()).toEqual([]);
    await checkView(page, 'operator-money');

    const second = await newPage();
    await signIn(second, 'operator', bob.token);
    await openView(second, 'Money', 'Deposits and conversions');
    const table = second.locator('table', { has: second.locator('caption', { hasText: 'Waiting for approval' }) });
    await table
      .getByRole('row', { name: new RegExp(approval?.approval_id ?? 'missing') })
      .getByRole('button', { name: 'Approve' })
      .click();
    await eventually(deposit, (balances) => JSON.stringify(balances) === JSON.stringify([{ currency: 'RUB', available: 5000 }]), 'the top-up booked');

    for (const [link, heading, name] of [
      ['Merchants', 'Merchants', 'operator-merchants'],
      ['Agents', 'Agents', 'operator-agents'],
      ['Withdrawals', 'Withdrawals', 'operator-withdrawals'],
      ['Health', 'System health', 'operator-health'],
    ] as const) {
      await openView(second, link, heading);
      await checkView(second, name);
    }
    await second.getByRole('row', { name: /ledger/ }).waitFor();
    await openView(second, 'Merchants', 'Merchants');
    await second.getByRole('link', { name: shop.credentials.merchantId, exact: true }).waitFor();
    await openView(second, 'Agents', 'Agents');
    await second.getByRole('row', { name: new RegExp(agent.agentId) }).waitFor();
    expect(await consoleStatus(second, '/console/api/merchant/v2/merchant')).toBe(403);
    expect(await consoleStatus(second, '/console/api/agent/orders')).toBe(403);
  });

  it('signs out: the session ends on the server, and the login page is accessible', async () => {
    const page = await newPage();
    await signIn(page, 'merchant', consoleKey);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in to the console' }).waitFor();
    expect(await page.evaluate(`fetch('/console/api/session').then((response) => response.status)`)).toBe(401);
    await checkView(page, 'login');
  });
});
