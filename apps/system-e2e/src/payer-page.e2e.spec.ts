/**
 * Goal: a payer on a phone gets from the merchant's `redirect_url` to "Payment received" with
 * nothing but the page: it shows the amount and a "Show payment details" button (opening the
 * link changes nothing, so a link preview or a mail scanner reserves no agent); the button
 * assigns an agent and shows its payment details and a running countdown; the page takes
 * "I have paid", and turns into the result by itself once the agent confirms.
 * Method: a real Chromium (Debian's, headless, 375×800) drives the page the real gateway
 * serves, over the real services and Kafka; each step is saved as a screenshot in
 * .local/test-logs/ so a person can look at what the payer saw.
 */
import {
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
import type { Browser, Page } from 'playwright-core';
import { incomingPayment, newOrderId } from './fixtures';

const AGENT = { method: 'bank_card', country: 'RU', currency: 'RUB', displayName: 'Ivan P.', paymentDetails: 'Card 2200 1234 5678 9012, Ivan P.' };
/** The page polls every 3 s; a flip must not take much longer than a couple of polls. */
const FLIP_TIMEOUT_MS = 15_000;

/** Text as a person reads it: no-break and other spaces as plain ones. */
const readable = (text: string | null) => (text ?? '').replace(/\s+/g, ' ').trim();

function secondsOf(countdown: string): number {
  return countdown
    .split(':')
    .map(Number)
    .reduce((total, part) => total * 60 + part, 0);
}

describe('payer page in a phone browser', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let merchant: SignedClient;
  let browser: Browser;
  let page: Page;
  let problems: string[];
  let agent: RegisteredAgent;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    operator = await createOperator(system);
    merchant = await system.createClient('Payer page shop');
    agent = await registerAgent(system, operator, [{ method: AGENT.method, country: AGENT.country, currency: AGENT.currency }], {
      display_name: AGENT.displayName,
      payment_details: AGENT.paymentDetails,
    });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await system?.stop();
  });

  beforeEach(async () => {
    page = await openPhonePage(browser);
    problems = [];
    // A script error or a blocked inline script (wrong CSP nonce) must fail the test, not just look odd.
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) problems.push(`CSP: ${message.text()}`);
    });
  });
  afterEach(async () => page?.context().close());

  async function createPayIn(overrides: Record<string, unknown> = {}): Promise<{ orderId: string; redirectUrl: string; expiresAt: string }> {
    const orderId = newOrderId('payer');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, overrides));
    expect(created.status).toBe(201);
    return { orderId, redirectUrl: created.body.redirect_url, expiresAt: created.body.expires_at };
  }

  /** Clicks something that loads the payer page again (form post and 303, or a plain link) and waits for the new page. */
  async function clickThroughToPage(testId: string, pageUrl: string): Promise<void> {
    await Promise.all([
      page.waitForResponse((response) => response.url().split('?')[0] === pageUrl && response.request().method() === 'GET'),
      page.getByTestId(testId).click(),
    ]);
    await page.waitForLoadState();
  }

  /** Who the order is assigned to, as the back office sees it, and what the merchant sees. */
  async function assignment(orderId: string): Promise<{ agentId: string | null; subStatus: string }> {
    const view = await operator.request('GET', `/backoffice/v1/orders/${merchant.credentials.merchantId}/${orderId}`);
    expect(view.status).toBe(200);
    return { agentId: view.body.agent_id, subStatus: (await merchant.get(`/v2/payments/status/${orderId}`)).body.sub_status };
  }

  it('leads the payer from the redirect to "Payment received"', async () => {
    const { orderId, redirectUrl, expiresAt } = await createPayIn();

    await page.goto(redirectUrl);
    expect(readable(await page.getByTestId('amount').textContent())).toBe('1 500.50 RUB');
    expect(await page.getByTestId('payment-details').count()).toBe(0);
    // Opening the link changed nothing, and neither does a link preview fetching it again.
    expect((await fetch(redirectUrl, { headers: { 'user-agent': 'LinkPreviewBot/1.0' } })).status).toBe(200);
    expect(await assignment(orderId)).toEqual({ agentId: null, subStatus: 'awaiting_agent' });
    await saveScreenshot(page, 'payer-page-0-show-details');

    await clickThroughToPage('show-details-button', redirectUrl);
    expect(await assignment(orderId)).toEqual({ agentId: agent.agentId, subStatus: 'agent_assigned' });
    expect(readable(await page.getByTestId('amount').textContent())).toBe('1 500.50 RUB');
    expect(await page.getByTestId('payment-details').textContent()).toBe(AGENT.paymentDetails);
    const countdown = readable(await page.getByTestId('countdown').textContent());
    expect(countdown).toMatch(/^(\d+:)?\d{2}:\d{2}$/);
    expect(Math.abs(secondsOf(countdown) - (Date.parse(expiresAt) - Date.now()) / 1000)).toBeLessThan(10);
    // It ticks, so the inline script runs under the page's CSP.
    await page.getByTestId('countdown').filter({ hasNotText: countdown }).waitFor({ timeout: 3_000 });
    await saveScreenshot(page, 'payer-page-1-pay');

    await clickThroughToPage('paid-button', redirectUrl);
    expect(await page.getByTestId('result-heading').textContent()).toBe('Payment reported, waiting for confirmation');
    expect((await merchant.get(`/v2/payments/status/${orderId}`)).body).toMatchObject({ status: 'PENDING', sub_status: 'payer_reported_paid' });
    await saveScreenshot(page, 'payer-page-2-reported');

    const confirmed = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {});
    expect(confirmed.status).toBe(200);
    await page.getByTestId('result-heading').filter({ hasText: 'Payment received' }).waitFor({ timeout: FLIP_TIMEOUT_MS });
    await saveScreenshot(page, 'payer-page-3-received');
    expect(problems).toEqual([]);
  });

  it('says when no agent serves the order yet and offers to try again', async () => {
    const { redirectUrl } = await createPayIn({ currency: 'INR', country: 'IN' });

    await page.goto(redirectUrl);
    await clickThroughToPage('show-details-button', redirectUrl);
    expect(await page.getByTestId('result-heading').textContent()).toBe('No payment details available yet');
    expect(await page.getByTestId('paid-button').count()).toBe(0);
    await saveScreenshot(page, 'payer-page-no-agent');
    await clickThroughToPage('retry-details-button', redirectUrl);
    expect(await page.getByTestId('result-heading').textContent()).toBe('No payment details available yet');
    expect(problems).toEqual([]);
  });

  it('changes nothing when a page on another site posts the button, and lands on the page', async () => {
    const { orderId, redirectUrl } = await createPayIn();
    // A page elsewhere that learnt the link submits the form itself; the browser marks it cross-site.
    await page.setContent(`<form method="post" action="${redirectUrl}/details"><button type="submit">Continue</button></form>`);
    await Promise.all([page.waitForURL(redirectUrl), page.getByRole('button', { name: 'Continue' }).click()]);
    await page.getByTestId('show-details-button').waitFor();
    expect(await assignment(orderId)).toEqual({ agentId: null, subStatus: 'awaiting_agent' });
  });

  it('answers a link that leads nowhere with a page, not an API error', async () => {
    const response = await page.goto(`${system.gatewayUrl}/pay/NoSuchPayerPageToken`);
    expect(response?.status()).toBe(404);
    expect(await page.getByTestId('result-heading').textContent()).toBe('Payment page not found');
    await saveScreenshot(page, 'payer-page-not-found');
  });
});
