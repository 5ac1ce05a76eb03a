import 'reflect-metadata';
import { Module } from '@nestjs/common';
import { APP_FILTER, NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { payerPageTokenHash, type CommandReplyData, type PaymentCommandType, type PaymentOrderView } from '@mp/contracts-payments';
import { MerchantCredentialStore } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyInstance } from 'fastify';
import { configureGatewayHttp, gatewayFastifyOptions } from '../http/configure-http';
import { ErrorResponseFilter } from '../http/error-response.filter';
import { ServiceCommandBus } from '../commands/service-command.bus';
import { PaymentsClient } from '../payments/payments.client';
import { PayerPageController } from './payer-page.controller';
import type { PayerPageView } from './payer-page.view';

const TOKEN = 'tok_Abc-123';
const AGENT = { display_name: 'Ivan P.', payment_details: 'Card 2200 1234 5678 9012, Ivan P.' };

/**
 * The payments side as the controller sees it: one order behind one token, commands recorded,
 * and what each command does (or throws) set per test.
 */
class FakePayments {
  view: PayerPageView & { merchant_id?: string } = { order: pendingOrder(), agent: null };
  readonly commands: Array<{ type: PaymentCommandType; data: unknown; key: string }> = [];
  readUnavailable = false;
  react: (type: PaymentCommandType) => CommandReplyData = () => ({ outcome: 'accepted', order: this.view.order });

  async getPayerPage(token: string): Promise<PayerPageView & { merchant_id?: string }> {
    if (this.readUnavailable) throw new DomainError('SERVICE_UNAVAILABLE', 'The payments service is not reachable; retry shortly');
    if (token !== TOKEN) throw new DomainError('NOT_FOUND', 'No such payment page');
    return structuredClone(this.view);
  }

  async execute(type: PaymentCommandType, data: unknown, options: { key: string }): Promise<CommandReplyData> {
    this.commands.push({ type, data, key: options.key });
    return this.react(type);
  }
}

function pendingOrder(overrides: Partial<PaymentOrderView> = {}): PaymentOrderView {
  return {
    order_id: 'A-1',
    direction: 'incoming',
    status: 'PENDING',
    sub_status: 'awaiting_agent',
    amount: '1500.50',
    fee: '37.51',
    currency: 'RUB',
    country: 'RU',
    method: 'bank_card',
    metadata: {},
    callback_url: 'https://shop.example/cb',
    failure_reason: null,
    expires_at: new Date(Date.now() + 30 * 60_000).toISOString(),
    created_at: new Date().toISOString(),
    updated_at: new Date().toISOString(),
    ...overrides,
  };
}

const rejected = (code: 'NOT_FOUND' | 'ORDER_STATE_CONFLICT'): CommandReplyData => ({ outcome: 'rejected', error: { code, message: code, details: [] } });

describe('payer page routes', () => {
  let app: NestFastifyApplication;
  let http: FastifyInstance;
  let payments: FakePayments;
  /** The merchants' default return URLs, as the profile store answers them. */
  const defaultReturnUrls = new Map<string, string | null>();

  beforeAll(async () => {
    payments = new FakePayments();
    @Module({
      controllers: [PayerPageController],
      providers: [
        { provide: ServiceCommandBus, useValue: payments },
        { provide: PaymentsClient, useValue: payments },
        {
          provide: MerchantCredentialStore,
          useValue: {
            findProfile: async (merchantId: string) => (defaultReturnUrls.has(merchantId) ? { default_return_url: defaultReturnUrls.get(merchantId) } : null),
          },
        },
        { provide: APP_FILTER, useClass: ErrorResponseFilter },
      ],
    })
    class PayerPageTestModule {}
    app = await NestFactory.create<NestFastifyApplication>(PayerPageTestModule, new FastifyAdapter(gatewayFastifyOptions()), {
      bodyParser: false,
      logger: false,
    });
    http = app.getHttpAdapter().getInstance();
    configureGatewayHttp(http);
    await app.init();
    await http.ready();
  });
  afterAll(async () => app?.close());

  beforeEach(() => {
    payments.view = { order: pendingOrder(), agent: null };
    payments.commands.length = 0;
    payments.readUnavailable = false;
    payments.react = () => ({ outcome: 'accepted', order: payments.view.order });
  });

  it('links back to the shop at every final state, with the order id and the outcome, and never before', async () => {
    defaultReturnUrls.set('mch_1', 'https://shop.example/default?lang=en');
    const returnLinkOf = async (order: PaymentOrderView) => {
      payments.view = { merchant_id: 'mch_1', order, agent: AGENT };
      const body = (await http.inject({ method: 'GET', url: `/pay/${TOKEN}` })).body;
      return /<a class="button" href="([^"]*)" data-testid="return-link">Return to the shop<\/a>/.exec(body)?.[1] ?? null;
    };
    const own = 'https://shop.example/back?cart=C-1';
    for (const status of ['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'] as const) {
      const outcome = status.toLowerCase();
      expect(await returnLinkOf(pendingOrder({ status, sub_status: null, return_url: own }))).toBe(
        `https://shop.example/back?cart=C-1&#38;order_id=A-1&#38;outcome=${outcome}`,
      );
      expect(await returnLinkOf(pendingOrder({ status, sub_status: null, return_url: null }))).toBe(
        `https://shop.example/default?lang=en&#38;order_id=A-1&#38;outcome=${outcome}`,
      );
    }
    expect(await returnLinkOf(pendingOrder({ sub_status: 'payer_reported_paid', return_url: own }))).toBeNull();
    defaultReturnUrls.set('mch_1', null);
    expect(await returnLinkOf(pendingOrder({ status: 'SUCCEEDED', sub_status: null, return_url: null }))).toBeNull();
  });

  it('shows the amount and a "Show payment details" button on GET, and changes nothing', async () => {
    for (const url of [`/pay/${TOKEN}`, `/pay/${TOKEN}`, `/pay/${TOKEN}?utm_source=preview`]) {
      const response = await http.inject({ method: 'GET', url });
      expect(response.statusCode).toBe(200);
      expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(response.body).toContain('data-testid="show-details-button">Show payment details<');
      expect(response.body).not.toContain('data-testid="payment-details"');
    }
    // No HEAD twin of the page (exposeHeadRoutes is off): a method the path does not have.
    const head = await http.inject({ method: 'HEAD', url: `/pay/${TOKEN}` });
    expect([head.statusCode, head.headers['allow']]).toEqual([405, 'GET']);
    expect(payments.commands).toEqual([]);
  });

  it('asks for an agent when the payer presses the button, then shows the page with the agent it got', async () => {
    payments.react = () => {
      payments.view = { order: pendingOrder({ sub_status: 'agent_assigned' }), agent: AGENT };
      return { outcome: 'accepted', order: payments.view.order };
    };
    const pressed = await http.inject({
      method: 'POST',
      url: `/pay/${TOKEN}/details`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
      payload: '',
    });
    expect([pressed.statusCode, pressed.headers.location, pressed.headers['cache-control']]).toEqual([303, `/pay/${TOKEN}`, 'no-store']);
    expect(payments.commands).toEqual([
      { type: 'OpenPayerPage', data: { payerPageTokenHash: payerPageTokenHash(TOKEN) }, key: `payer-page/${payerPageTokenHash(TOKEN)}` },
    ]);
    const page = await http.inject({ method: 'GET', url: `/pay/${TOKEN}` });
    expect(page.body).toContain('data-testid="payment-details">Card 2200 1234 5678 9012, Ivan P.<');
    expect(payments.commands).toHaveLength(1);
  });

  it.each([
    ['the details button', 'details'],
    ['"I have paid"', 'paid'],
  ])('changes nothing when %s is posted from another site, and lands on the page', async (_case, action) => {
    for (const site of ['cross-site', 'same-site']) {
      const response = await http.inject({ method: 'POST', url: `/pay/${TOKEN}/${action}`, headers: { 'sec-fetch-site': site } });
      expect([response.statusCode, response.headers.location]).toEqual([303, `/pay/${TOKEN}`]);
    }
    expect(payments.commands).toEqual([]);
  });

  it('sends no command when the order already has its agent, and locks the page to its own nonce', async () => {
    payments.view = { order: pendingOrder({ sub_status: 'agent_assigned' }), agent: AGENT };
    const response = await http.inject({ method: 'GET', url: `/pay/${TOKEN}` });
    expect(payments.commands).toEqual([]);
    const nonce = /script-src 'nonce-([^']+)'/.exec(String(response.headers['content-security-policy']))?.[1];
    expect(nonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect(response.body).toContain(`<script nonce="${nonce}">`);
    expect(response.headers).toMatchObject({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY' });
    const again = await http.inject({ method: 'GET', url: `/pay/${TOKEN}` });
    expect(again.headers['content-security-policy']).not.toContain(nonce);
  });

  it.each([
    ['none was free', (): CommandReplyData => ({ outcome: 'accepted', order: pendingOrder() })],
    [
      'the command got no answer in time',
      (): CommandReplyData => {
        throw new DomainError('SERVICE_UNAVAILABLE', 'The payments service did not answer in time');
      },
    ],
  ])('says no agent is available yet when %s', async (_case, react) => {
    payments.react = react;
    const pressed = await http.inject({ method: 'POST', url: `/pay/${TOKEN}/details` });
    expect([pressed.statusCode, pressed.headers.location]).toEqual([303, `/pay/${TOKEN}?no_agent_yet`]);
    const response = await http.inject({ method: 'GET', url: pressed.headers.location as string });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('data-testid="result-heading">No payment details available yet<');
    expect(response.body).toContain('data-testid="retry-details-button">Try again<');
    expect(payments.commands.map((command) => command.type)).toEqual(['OpenPayerPage']);
  });

  it('shows the finished state without asking for an agent', async () => {
    payments.view = { order: pendingOrder({ status: 'EXPIRED', sub_status: null }), agent: null };
    const response = await http.inject({ method: 'GET', url: `/pay/${TOKEN}` });
    expect(response.body).toContain('data-testid="result-heading">Payment time expired<');
    expect(payments.commands).toEqual([]);
    const pressedLate = await http.inject({ method: 'POST', url: `/pay/${TOKEN}/details` });
    expect([pressedLate.statusCode, pressedLate.headers.location]).toEqual([303, `/pay/${TOKEN}`]);
  });

  it.each([
    ['an unknown token', `/pay/tok_unknown`],
    ['a token that cannot be one', `/pay/no%20such%3Ctoken%3E`],
  ])('answers %s with an HTML 404 page', async (_case, url) => {
    const response = await http.inject({ method: 'GET', url });
    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(response.body).toContain('data-testid="result-heading">Payment page not found<');
  });

  it('answers an unreachable payments service with an HTML 503 page that offers a retry', async () => {
    payments.readUnavailable = true;
    const response = await http.inject({ method: 'GET', url: `/pay/${TOKEN}` });
    expect(response.statusCode).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(response.body).toContain(`href="/pay/${TOKEN}" data-testid="reload-button">Try again<`);
  });

  it('takes "I have paid" as a bodiless form post and redirects back to the page', async () => {
    payments.view = { order: pendingOrder({ sub_status: 'agent_assigned' }), agent: AGENT };
    const response = await http.inject({
      method: 'POST',
      url: `/pay/${TOKEN}/paid`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: '',
    });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe(`/pay/${TOKEN}`);
    expect(payments.commands).toEqual([
      { type: 'MarkPaidByPayer', data: { payerPageTokenHash: payerPageTokenHash(TOKEN) }, key: `payer-page/${payerPageTokenHash(TOKEN)}` },
    ]);
  });

  it('redirects back to the page when the order moved on, so the page shows where it stands', async () => {
    payments.react = () => rejected('ORDER_STATE_CONFLICT');
    const response = await http.inject({ method: 'POST', url: `/pay/${TOKEN}/paid` });
    expect([response.statusCode, response.headers.location]).toEqual([303, `/pay/${TOKEN}`]);
  });

  it('answers "I have paid" for an unknown page with the 404 page', async () => {
    payments.react = () => rejected('NOT_FOUND');
    const response = await http.inject({ method: 'POST', url: `/pay/tok_unknown/paid` });
    expect(response.statusCode).toBe(404);
    expect(response.body).toContain('Payment page not found');
  });

  it('tells the polling page the status, and unknown tokens the usual JSON 404', async () => {
    payments.view = { order: pendingOrder({ sub_status: 'payer_reported_paid' }), agent: AGENT };
    const response = await http.inject({ method: 'GET', url: `/pay/${TOKEN}/status` });
    expect([response.statusCode, response.headers['cache-control'], response.json()]).toEqual([
      200,
      'no-store',
      { status: 'PENDING', sub_status: 'payer_reported_paid' },
    ]);
    const unknown = await http.inject({ method: 'GET', url: `/pay/tok_unknown/status` });
    expect([unknown.statusCode, unknown.json().error.code]).toEqual([404, 'NOT_FOUND']);
  });
});
