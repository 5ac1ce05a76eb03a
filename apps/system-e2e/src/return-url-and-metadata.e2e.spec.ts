/**
 * Goal: a merchant gets its payer back and its own reference data everywhere. A pay-in
 * with `return_url` and `metadata`: the payer page, once the order is final, links back to the
 * return URL with the order id and the outcome added; the `payment.succeeded` callback's body,
 * verified with the `standardwebhooks` package and the merchant's webhook secret, carries the
 * metadata; so do the status read, the list and the reconciliation CSV's `order_metadata` column.
 * A pay-in without a return URL links back to the profile's `default_return_url` (set with
 * `PATCH /v2/merchant`); a payout's metadata reaches its status read and its callback; a retry
 * with other metadata is 409 DUPLICATE_ORDER; bad metadata is 400 VALIDATION_ERROR naming the key.
 * Method: a real Chromium (headless, phone-sized) on the page the real gateway serves, over the
 * real services, Kafka and PostgreSQL; callbacks reach a verifying receiver on 127.0.0.1.
 */
import {
  BackofficeClient,
  CallbackReceiver,
  createOperator,
  eventually,
  launchBrowser,
  openPhonePage,
  registerAgent,
  saveScreenshot,
  SignedClient,
  SystemUnderTest,
  type RegisteredAgent,
} from '@mp/shared-testing';
import type { Browser, Page } from 'playwright-core';
import { Webhook } from 'standardwebhooks';
import { incomingPayment, newOrderId } from './fixtures';

const METADATA = { cart_id: 'C-7731', customer_id: 'U-102', note: 'gift, "wrapped"' };
const RETURN_URL = 'https://shop.example/orders/back?lang=en';
const DEFAULT_RETURN_URL = 'https://shop.example/default-return';

/** The page polls every 3 s: the flip to the result takes a couple of polls. */
const FLIP_TIMEOUT_MS = 15_000;

type OrderData = { order_id: string; metadata?: Record<string, string> };

/** The last field of a CSV record (RFC 4180: quoted when it holds a comma or a quote, quotes doubled). */
function lastCsvField(line: string): string {
  const quoted = /,"((?:[^"]|"")*)"$/.exec(line);
  return quoted ? quoted[1].replace(/""/g, '"') : line.slice(line.lastIndexOf(',') + 1);
}

describe('return URLs and merchant metadata', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let receiver: CallbackReceiver;
  let merchant: SignedClient;
  let webhookSecret: string;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    system = await SystemUnderTest.start({ env: { gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true' } } });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    receiver = await CallbackReceiver.start({ secrets: [] });
    const created = await operator.request('POST', '/backoffice/v1/merchants', { name: 'Metadata shop', default_callback_url: receiver.url() });
    expect(created.status).toBe(201);
    webhookSecret = created.body.webhook_secret as string;
    receiver.secrets.push(webhookSecret);
    merchant = new SignedClient(system.gatewayUrl, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret });
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await system?.stop();
    await receiver?.stop();
  });

  beforeEach(async () => {
    page = await openPhonePage(browser);
  });
  afterEach(async () => page?.context().close());

  /** The payer page's "Return to the shop" link, or null when the page shows none. */
  async function returnLink(): Promise<URL | null> {
    const link = page.getByTestId('return-link');
    if ((await link.count()) === 0) return null;
    expect(await link.textContent()).toBe('Return to the shop');
    return new URL((await link.getAttribute('href')) as string);
  }

  /** Presses a payer-page button (a form post answered 303) and waits for the page it lands on. */
  async function press(testId: string, pageUrl: string): Promise<void> {
    await Promise.all([
      page.waitForResponse((response) => response.url().split('?')[0] === pageUrl && response.request().method() === 'GET'),
      page.getByTestId(testId).click(),
    ]);
    await page.waitForLoadState();
  }

  /** The callback bodies of one object, by type. */
  const callbacksOf = (orderId: string) => receiver.bodies<OrderData>().filter((body) => body.data.order_id === orderId);

  it('pay-in: the payer page links back with the order id and outcome; the verified callback, status read, list and CSV carry the metadata', async () => {
    const orderId = newOrderId('meta-payin');
    const created = await merchant.post(
      '/v2/payments/incoming',
      incomingPayment(orderId, { callback_url: receiver.url('/payments'), return_url: RETURN_URL, metadata: METADATA }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ return_url: RETURN_URL, metadata: METADATA });
    const redirectUrl = created.body.redirect_url as string;

    // No link while the order is open.
    await page.goto(redirectUrl);
    expect(await returnLink()).toBeNull();
    await press('show-details-button', redirectUrl);
    await press('paid-button', redirectUrl);
    expect(await returnLink()).toBeNull();
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {})).status).toBe(200);
    await page.getByTestId('result-heading').filter({ hasText: 'Payment received' }).waitFor({ timeout: FLIP_TIMEOUT_MS });
    await saveScreenshot(page, 'payer-page-return-link');

    // The way back: the return URL as given, with the order id and the outcome added.
    const link = await returnLink();
    expect(link && `${link.origin}${link.pathname}`).toBe('https://shop.example/orders/back');
    expect(link && Object.fromEntries(link.searchParams)).toEqual({ lang: 'en', order_id: orderId, outcome: 'succeeded' });

    // The callback, verified here with the Standard Webhooks package as a merchant would.
    const [callback] = await eventually(
      () => receiver.received.filter((request) => request.url === '/payments' && request.body.includes(orderId)),
      (found) => found.length === 1,
      'the pay-in callback',
      30_000,
    );
    const verified = new Webhook(webhookSecret).verify(callback.body, callback.headers as Record<string, string>) as {
      type: string;
      data: Record<string, unknown>;
    };
    expect(verified.type).toBe('payment.succeeded');
    expect(verified.data).toMatchObject({ order_id: orderId, status: 'SUCCEEDED', return_url: RETURN_URL, metadata: METADATA });

    // The status read and the list say the same.
    const status = await merchant.get(`/v2/payments/status/${orderId}`);
    expect(status.body).toMatchObject({ status: 'SUCCEEDED', return_url: RETURN_URL, metadata: METADATA });
    const { redirect_url: _redirect, ...withoutLink } = status.body as Record<string, unknown>;
    expect(verified.data).toEqual({ ...withoutLink, version: expect.any(Number) });
    const listed = await merchant.post('/v2/payments/incoming/list', { limit: 100 });
    expect((listed.body.data as OrderData[]).find((order) => order.order_id === orderId)?.metadata).toEqual(METADATA);

    // The reconciliation report: the order's entries carry its metadata as one JSON column.
    const today = new Date().toISOString().slice(0, 10);
    const report = await merchant.get(`/v2/merchant/reconciliation?date=${today}&currency=RUB`);
    expect(report.status).toBe(200);
    const [header, ...lines] = (report.text as string).trimEnd().split('\r\n');
    expect(header.split(',').at(-1)).toBe('order_metadata');
    const orderLines = lines.filter((line) => line.includes(`,payment_order,${orderId},`));
    expect(orderLines.length).toBeGreaterThanOrEqual(2);
    for (const line of orderLines) expect(JSON.parse(lastCsvField(line))).toEqual(METADATA);
  });

  it("pay-in without a return_url: the payer page links back to the profile's default_return_url, set with PATCH /v2/merchant", async () => {
    const settings = await merchant.request({ method: 'PATCH', path: '/v2/merchant', body: { default_return_url: DEFAULT_RETURN_URL } });
    expect(settings.status).toBe(200);
    expect(settings.body).toMatchObject({ default_callback_url: receiver.url(), default_return_url: DEFAULT_RETURN_URL });
    expect((await merchant.get('/v2/merchant')).body.default_return_url).toBe(DEFAULT_RETURN_URL);

    const orderId = newOrderId('meta-default');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
    expect(created.body).toMatchObject({ return_url: null, metadata: {} });
    expect((await merchant.post(`/v2/payments/${orderId}/cancel`, {})).status).toBe(200);
    await page.goto(created.body.redirect_url as string);
    expect(await page.getByTestId('result-heading').textContent()).toBe('Payment cancelled');
    const link = await returnLink();
    expect(link && `${link.origin}${link.pathname}?${link.searchParams}`).toBe(`${DEFAULT_RETURN_URL}?order_id=${orderId}&outcome=cancelled`);

    // The destination policy of callback URLs: https only (this system allows http for the receiver, so a bad scheme shows it).
    for (const body of [{ default_return_url: 'ftp://shop.example/back' }, {}]) {
      const refused = await merchant.request({ method: 'PATCH', path: '/v2/merchant', body });
      expect([refused.status, refused.body.error?.code]).toEqual([400, 'VALIDATION_ERROR']);
    }
    const badReturn = await merchant.post('/v2/payments/incoming', incomingPayment(newOrderId('meta-bad-return'), { return_url: 'javascript:alert(1)' }));
    expect([badReturn.status, badReturn.body.error.details]).toEqual([400, [{ field: 'return_url', issue: expect.any(String) }]]);
  });

  it('payout: its status read and its callback carry the metadata; a retry with other metadata is 409; bad metadata is 400 naming the key', async () => {
    // Funds for the payout: a pay-in the agent confirms.
    const fundingId = newOrderId('meta-funding');
    const funding = await merchant.post('/v2/payments/incoming', incomingPayment(fundingId, { amount: 3000 }));
    expect((await fetch(`${funding.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${fundingId}/confirm`, {})).status).toBe(200);
    await eventually(
      async () => (await merchant.get('/v2/merchant/balances')).body.settlement as Array<{ available: number }>,
      (settlement) => (settlement[0]?.available ?? 0) >= 1100,
      'the funded balance',
      30_000,
    );

    const payoutId = newOrderId('meta-payout');
    const payoutMetadata = { invoice: 'INV-2026-17' };
    const payout = {
      order_id: payoutId,
      amount: 1000,
      currency: 'RUB',
      country: 'RU',
      method: 'bank_card',
      account_number: '4111 1111 1111 1111',
      callback_url: receiver.url('/payouts'),
      metadata: payoutMetadata,
    };
    expect((await merchant.post('/v2/payments/outgoing', payout)).status).toBe(201);
    const retried = await merchant.post('/v2/payments/outgoing', { ...payout, metadata: { invoice: 'INV-2026-18' } });
    expect([retried.status, retried.body.error.code, retried.body.error.details[0].field]).toEqual([409, 'DUPLICATE_ORDER', 'metadata']);
    expect((await merchant.post(`/v2/payments/${payoutId}/cancel`, {})).status).toBe(200);

    const [cancelled] = await eventually(
      () => callbacksOf(payoutId),
      (bodies) => bodies.length === 1,
      'the payout callback',
      30_000,
    );
    expect(cancelled.type).toBe('payment.cancelled');
    expect(cancelled.data.metadata).toEqual(payoutMetadata);
    expect((await merchant.get(`/v2/payments/status/${payoutId}`)).body.metadata).toEqual(payoutMetadata);
    expect(receiver.received.every((request) => request.verifiedWith.length === 1)).toBe(true);

    const tooLong = await merchant.post('/v2/payments/outgoing', { ...payout, order_id: newOrderId('meta-bad'), metadata: { note: 'x'.repeat(501) } });
    expect([tooLong.status, tooLong.body.error.code, tooLong.body.error.details]).toEqual([
      400,
      'VALIDATION_ERROR',
      [{ field: 'metadata', issue: expect.stringContaining('key "note"') }],
    ]);
  });
});
