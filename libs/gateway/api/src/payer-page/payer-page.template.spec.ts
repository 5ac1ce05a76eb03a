import type { PaymentOrderView } from '@mp/contracts-payments';
import { formatAmount, formatRemaining, payerPageContentSecurityPolicy } from './payer-page.html';
import { payerPageScreenOf, renderPayerErrorPage, renderPayerPage } from './payer-page.template';
import type { PayerPageView } from './payer-page.view';

const now = new Date('2030-01-01T12:00:00.000Z');
const context = { token: 'tok_Abc-123', nonce: 'n0nce+/=', now };

function order(overrides: Partial<PaymentOrderView> = {}): PaymentOrderView {
  return {
    order_id: 'A-1',
    direction: 'incoming',
    status: 'PENDING',
    sub_status: 'agent_assigned',
    amount: '1500.50',
    fee: '37.51',
    currency: 'RUB',
    country: 'RU',
    method: 'bank_card',
    metadata: {},
    callback_url: 'https://shop.example/cb',
    failure_reason: null,
    expires_at: '2030-01-01T12:29:41.900Z',
    created_at: '2030-01-01T11:59:41.900Z',
    updated_at: '2030-01-01T11:59:41.900Z',
    ...overrides,
  };
}

const agent = { display_name: 'Ivan P.', payment_details: 'Card 2200 1234 5678 9012, Ivan P.' };
const payable: PayerPageView = { order: order(), agent };

/** The text of the element carrying this data-testid, tags stripped. */
function testIdText(html: string, testId: string): string | undefined {
  const match = new RegExp(`data-testid="${testId}"[^>]*>([\\s\\S]*?)</`).exec(html);
  return match?.[1].replace(/<[^>]+>/g, '');
}

describe('payer page screens', () => {
  it.each([
    ['show_details', order({ sub_status: 'awaiting_agent' }), null],
    ['pay', order(), agent],
    ['reported_paid', order({ sub_status: 'payer_reported_paid' }), agent],
    ['succeeded', order({ status: 'SUCCEEDED', sub_status: null }), agent],
    ['failed', order({ status: 'FAILED', sub_status: null }), agent],
    ['cancelled', order({ status: 'CANCELLED', sub_status: null }), null],
    ['expired', order({ status: 'EXPIRED', sub_status: null }), null],
  ] as const)('picks the %s screen from the order state', (screen, orderView, agentView) => {
    expect(payerPageScreenOf({ order: orderView, agent: agentView }).name).toBe(screen);
  });

  it('says no agent is free only after the payer asked for one', () => {
    const unassigned = { order: order({ sub_status: 'awaiting_agent' }), agent: null };
    expect(payerPageScreenOf(unassigned, true).name).toBe('awaiting_agent');
    expect(payerPageScreenOf({ order: order(), agent }, true).name).toBe('pay');
  });

  it('shows the amount and a "Show payment details" form post before an agent is assigned, and nothing of any agent', () => {
    const html = renderPayerPage({ order: order({ sub_status: 'awaiting_agent' }), agent: null }, context);
    expect(testIdText(html, 'amount')).toBe('1\u00a0500.50 RUB');
    expect(html).toMatch(
      /<form method="post" action="\/pay\/tok_Abc-123\/details" data-details-form>\s*<button class="button" type="submit" data-testid="show-details-button">Show payment details<\/button>/,
    );
    expect(html).not.toContain('payment-details');
    expect(html).not.toContain('paid-button');
    expect(html).not.toContain('data-testid="countdown"');
  });

  it('shows where and how much to pay, the time left and the button', () => {
    const html = renderPayerPage(payable, context);
    expect(testIdText(html, 'amount')).toBe('1\u00a0500.50 RUB');
    expect(testIdText(html, 'payment-details')).toBe('Card 2200 1234 5678 9012, Ivan P.');
    expect(testIdText(html, 'countdown')).toBe('29:41');
    expect(html).toContain('data-remaining-seconds="1781"');
    expect(html).toMatch(
      /<form method="post" action="\/pay\/tok_Abc-123\/paid" data-paid-form>\s*<button class="button" type="submit" data-testid="paid-button">I have paid<\/button>/,
    );
    expect(html).not.toContain('result-heading');
  });

  it('shrinks long amounts so they fit a phone line', () => {
    expect(renderPayerPage(payable, context)).toContain('<p class="amount" data-testid="amount">');
    const huge = renderPayerPage({ order: order({ amount: '999999999999.123456', currency: 'USDT' }), agent }, context);
    expect(huge).toContain('<p class="amount long" data-testid="amount">999\u00a0999\u00a0999\u00a0999.123456 USDT</p>');
  });

  it('counts down from zero, not below, once the expiry has passed', () => {
    const html = renderPayerPage({ order: order({ expires_at: '2030-01-01T11:00:00.000Z' }), agent }, context);
    expect(testIdText(html, 'countdown')).toBe('00:00');
    expect(html).toContain('data-remaining-seconds="0"');
  });

  it.each([
    ['awaiting_agent', order({ sub_status: 'awaiting_agent' }), 'No payment details available yet'],
    ['reported_paid', order({ sub_status: 'payer_reported_paid' }), 'Payment reported, waiting for confirmation'],
    ['succeeded', order({ status: 'SUCCEEDED', sub_status: null }), 'Payment received'],
    ['failed', order({ status: 'FAILED', sub_status: null }), 'Payment failed'],
    ['cancelled', order({ status: 'CANCELLED', sub_status: null }), 'Payment cancelled'],
    ['expired', order({ status: 'EXPIRED', sub_status: null }), 'Payment time expired'],
  ])('gives %s its own heading and no pay button', (_screen, orderView, heading) => {
    const waitingForAgent = orderView.sub_status === 'awaiting_agent';
    const html = renderPayerPage({ order: orderView, agent: waitingForAgent ? null : agent }, { ...context, agentRequested: waitingForAgent });
    expect(testIdText(html, 'result-heading')).toBe(heading);
    expect(html).not.toContain('paid-button');
    expect(html).not.toContain('payment-details');
  });

  it('offers a retry while no agent is free, as a form post since only a post may assign one', () => {
    const html = renderPayerPage({ order: order({ sub_status: 'awaiting_agent' }), agent: null }, { ...context, agentRequested: true });
    expect(html).toMatch(
      /<form method="post" action="\/pay\/tok_Abc-123\/details" data-details-form>\s*<button class="button" type="submit" data-testid="retry-details-button">Try again<\/button>/,
    );
    expect(html).not.toContain('reload-button');
  });

  it('polls only while the order can still change', () => {
    expect(renderPayerPage(payable, context)).toContain(
      '<main data-status="PENDING" data-sub-status="agent_assigned" data-status-url="/pay/tok_Abc-123/status">',
    );
    expect(renderPayerPage({ order: order({ status: 'SUCCEEDED', sub_status: null }), agent }, context)).toContain(
      '<main data-status="SUCCEEDED" data-sub-status="">',
    );
  });

  it('escapes every value from the order and the agent', () => {
    const hostile = '"><script>alert(1)</script>\'&';
    const html = renderPayerPage(
      {
        order: order({ order_id: hostile, currency: hostile, status: 'FAILED', sub_status: null, failure_reason: hostile }),
        agent: { display_name: hostile, payment_details: hostile },
      },
      context,
    );
    const payHtml = renderPayerPage({ order: order({ order_id: hostile }), agent: { display_name: hostile, payment_details: hostile } }, context);
    for (const page of [html, payHtml]) {
      expect(page).not.toContain('<script>alert');
      expect(page).not.toContain(hostile);
      expect(page).toContain('&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#39;&#38;');
      expect(page.match(/<script/g)).toHaveLength(1);
    }
    expect(payHtml).toContain(`data-copy="&#34;&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#39;&#38;"`);
  });

  it('loads nothing from elsewhere and puts the nonce on its one style and one script', () => {
    const html = renderPayerPage(payable, context);
    expect(html).not.toMatch(/\b(src|href)="(https?:)?\/\//);
    expect(html).not.toMatch(/ style="/);
    expect(html.match(/<style nonce="n0nce\+\/=">/g)).toHaveLength(1);
    expect(html.match(/<script nonce="n0nce\+\/=">/g)).toHaveLength(1);
    expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(payerPageContentSecurityPolicy('n0nce')).toBe(
      "default-src 'none'; script-src 'nonce-n0nce'; style-src 'nonce-n0nce'; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
    );
  });

  it('has pages for unknown links and an unreachable payments service', () => {
    expect(testIdText(renderPayerErrorPage('not_found', context), 'result-heading')).toBe('Payment page not found');
    const unavailable = renderPayerErrorPage('unavailable', context);
    expect(testIdText(unavailable, 'result-heading')).toBe('Payment temporarily unavailable');
    expect(unavailable).toContain('href="/pay/tok_Abc-123"');
    expect(unavailable).toContain('<main>');
  });
});

describe('payer page formatting', () => {
  it.each([
    ['1500.50', '1\u00a0500.50'],
    ['100.00', '100.00'],
    ['1000', '1\u00a0000'],
    ['999999999999.123456', '999\u00a0999\u00a0999\u00a0999.123456'],
    ['0.000001', '0.000001'],
  ])('groups the digits of %s without touching them', (amount, shown) => {
    expect(formatAmount(amount)).toBe(shown);
  });

  it.each([
    [-5, '00:00'],
    [0, '00:00'],
    [59.9, '00:59'],
    [1781, '29:41'],
    [3600, '1:00:00'],
    [86399, '23:59:59'],
  ])('shows %s seconds as %s', (seconds, shown) => {
    expect(formatRemaining(seconds)).toBe(shown);
  });
});
