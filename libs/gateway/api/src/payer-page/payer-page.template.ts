import type { PaymentOrderView } from '@mp/contracts-payments';
import { escapeHtml, formatAmount, formatRemaining, payerPagePath, renderDocument } from './payer-page.html';
import type { PayerPageAgentView, PayerPageView } from './payer-page.view';

/** The screens that tell the payer where things stand; the other one is the payment form. */
export type ResultScreenName = 'awaiting_agent' | 'reported_paid' | 'succeeded' | 'failed' | 'cancelled' | 'expired';

/** Which screen a payer sees: one per order state the payer can act on or needs to know about. */
export type PayerPageScreen = { name: 'pay'; agent: PayerPageAgentView } | { name: 'show_details' } | { name: ResultScreenName };

export interface PayerPageRenderContext {
  token: string;
  /** The response's CSP nonce. */
  nonce: string;
  /** The server's clock, for the countdown's starting point. */
  now: Date;
  /** The payer asked for payment details and no agent was free: say so instead of offering the button as new. */
  agentRequested?: boolean;
}

interface ResultScreen {
  badge: 'success' | 'failure' | 'neutral' | 'waiting';
  symbol: string;
  heading: string;
  messages: (order: PaymentOrderView | null) => string[];
  /** A link that reloads the page: to check without the page script, or to retry a read. */
  reload?: { label: string; primary: boolean };
  /** A button that asks for payment details again (a form post: only a post may assign an agent). */
  retryDetails?: { label: string };
  /** A final state: the link back to the shop says this outcome (when the merchant gave a return URL). */
  outcome?: ReturnOutcome;
}

/** What the link back to the shop reports, as its `outcome` query parameter: the final status, lower case. */
export type ReturnOutcome = 'succeeded' | 'failed' | 'cancelled' | 'expired';

/**
 * The link back to the shop: the return URL with `order_id` and `outcome` set as query
 * parameters (replacing any the merchant put there under those names). They only tell the shop
 * which page to show; they prove nothing, since anyone can type such a link (docs/api/callbacks.md).
 */
export function returnLinkOf(returnUrl: string, orderId: string, outcome: ReturnOutcome): string {
  const url = new URL(returnUrl);
  url.searchParams.set('order_id', orderId);
  url.searchParams.set('outcome', outcome);
  return url.toString();
}

/** Longer amounts ("1 500 000.00 RUB" and up) get a smaller font so they stay on a 375 px line. */
const LONG_AMOUNT_CHARACTERS = 14;

const IF_ALREADY_SENT = 'If you have already sent money, contact the shop and quote the order below.';

const RESULT_SCREENS: Record<ResultScreenName, ResultScreen> = {
  awaiting_agent: {
    badge: 'neutral',
    symbol: '…',
    heading: 'No payment details available yet',
    messages: () => ['All payment recipients are busy right now. Please try again in a minute.', 'Do not send money until this page shows where to send it.'],
    retryDetails: { label: 'Try again' },
  },
  reported_paid: {
    badge: 'waiting',
    symbol: '',
    heading: 'Payment reported, waiting for confirmation',
    messages: () => [
      'Thank you. The recipient is checking that your transfer has arrived.',
      'This page updates by itself; you can also come back to this link later.',
    ],
    reload: { label: 'Check status', primary: false },
  },
  succeeded: {
    badge: 'success',
    outcome: 'succeeded',
    symbol: '✓',
    heading: 'Payment received',
    messages: () => ['Your payment has been confirmed. You can return to the shop.'],
  },
  failed: {
    badge: 'failure',
    outcome: 'failed',
    symbol: '×',
    heading: 'Payment failed',
    messages: (order) => [
      'The recipient could not confirm your transfer.',
      ...(order?.failure_reason ? [`Reason: ${order.failure_reason}`] : []),
      IF_ALREADY_SENT,
    ],
  },
  cancelled: {
    badge: 'neutral',
    outcome: 'cancelled',
    symbol: '×',
    heading: 'Payment cancelled',
    messages: () => ['The shop cancelled this payment. Please do not send money for it.', IF_ALREADY_SENT],
  },
  expired: {
    badge: 'neutral',
    outcome: 'expired',
    symbol: '!',
    heading: 'Payment time expired',
    messages: () => ['The time to pay has run out. Please do not send money for it; return to the shop to start a new payment.', IF_ALREADY_SENT],
  },
};

/** `agentRequested`: the payer already pressed "Show payment details" and no agent was free. */
export function payerPageScreenOf(view: PayerPageView, agentRequested = false): PayerPageScreen {
  switch (view.order.status) {
    case 'SUCCEEDED':
      return { name: 'succeeded' };
    case 'FAILED':
      return { name: 'failed' };
    case 'CANCELLED':
      return { name: 'cancelled' };
    case 'EXPIRED':
      return { name: 'expired' };
    case 'PENDING':
      if (view.order.sub_status === 'payer_reported_paid') return { name: 'reported_paid' };
      if (view.agent) return { name: 'pay', agent: view.agent };
      return agentRequested ? { name: 'awaiting_agent' } : { name: 'show_details' };
  }
}

/** The payer page for an order in any state. Every value from the order or agent is escaped. */
export function renderPayerPage(view: PayerPageView, context: PayerPageRenderContext): string {
  const screen = payerPageScreenOf(view, context.agentRequested);
  const { order } = view;
  const mainAttributes = mainAttributesOf(order, context.token);
  if (screen.name === 'pay') {
    return renderDocument({ title: 'Complete your payment', nonce: context.nonce, mainAttributes, body: renderPayScreen(order, screen.agent, context) });
  }
  if (screen.name === 'show_details') {
    return renderDocument({ title: 'Complete your payment', nonce: context.nonce, mainAttributes, body: renderShowDetailsScreen(order, context.token) });
  }
  const result = RESULT_SCREENS[screen.name];
  const returnLink = result.outcome && view.returnUrl ? returnLinkOf(view.returnUrl, order.order_id, result.outcome) : null;
  return renderDocument({ title: result.heading, nonce: context.nonce, mainAttributes, body: renderResultCard(result, order, context.token, returnLink) });
}

export type PayerErrorPageKind = 'not_found' | 'unavailable';

const ERROR_SCREENS: Record<PayerErrorPageKind, ResultScreen> = {
  not_found: {
    badge: 'neutral',
    symbol: '?',
    heading: 'Payment page not found',
    messages: () => ['This payment link is wrong or no longer valid.', 'Please return to the shop and start the payment again.'],
  },
  unavailable: {
    badge: 'neutral',
    symbol: '!',
    heading: 'Payment temporarily unavailable',
    messages: () => ['The payment service did not answer in time. Please try again in a moment.'],
    reload: { label: 'Try again', primary: true },
  },
};

/** A page for when there is no order to show: an unknown link, or the payments service not answering. */
export function renderPayerErrorPage(kind: PayerErrorPageKind, context: { nonce: string; token: string }): string {
  const screen = ERROR_SCREENS[kind];
  return renderDocument({ title: screen.heading, nonce: context.nonce, mainAttributes: '', body: renderResultCard(screen, null, context.token) });
}

/**
 * The status the page shows, for the page script to compare with what it polls; the status URL
 * only while the order can still change.
 */
function mainAttributesOf(order: PaymentOrderView, token: string): string {
  const statusUrl = order.status === 'PENDING' ? ` data-status-url="${escapeHtml(`${payerPagePath(token)}/status`)}"` : '';
  return ` data-status="${escapeHtml(order.status)}" data-sub-status="${escapeHtml(order.sub_status ?? '')}"${statusUrl}`;
}

function renderPayScreen(order: PaymentOrderView, agent: PayerPageAgentView, context: PayerPageRenderContext): string {
  const amount = `${formatAmount(order.amount)} ${order.currency}`;
  const remainingSeconds = Math.max(0, Math.floor((Date.parse(order.expires_at) - context.now.getTime()) / 1000));
  return `<h1>Complete your payment</h1>
<p class="reference">Order ${escapeHtml(order.order_id)}</p>
<section class="card">
  <div class="row">
    <p class="label">Amount to pay</p>
    ${copyButton(order.amount, 'amount')}
  </div>
  <p class="${amount.length > LONG_AMOUNT_CHARACTERS ? 'amount long' : 'amount'}" data-testid="amount">${escapeHtml(amount)}</p>
  <p class="timer">Time left to pay: <strong data-testid="countdown" data-remaining-seconds="${remainingSeconds}">${formatRemaining(remainingSeconds)}</strong></p>
</section>
<section class="card">
  <div class="row">
    <p class="label">Send the money to</p>
    ${copyButton(agent.payment_details, 'payment details')}
  </div>
  <p class="details" data-testid="payment-details">${escapeHtml(agent.payment_details)}</p>
  <p class="recipient">Recipient: ${escapeHtml(agent.display_name)}</p>
</section>
<section class="card">
  <ol class="steps">
    <li>Send exactly <strong>${escapeHtml(amount)}</strong> in one transfer to the details above.</li>
    <li>When the transfer is done, press “I&nbsp;have&nbsp;paid”.</li>
  </ol>
  <form method="post" action="${escapeHtml(`${payerPagePath(context.token)}/paid`)}" data-paid-form>
    <button class="button" type="submit" data-testid="paid-button">I have paid</button>
  </form>
  <p class="hint">Press it only after sending the money.</p>
</section>`;
}

/**
 * Before an agent is assigned: the amount and the button that assigns one. Nothing here changes
 * the order, so a link preview or a mail scanner fetching the link reserves no agent.
 */
function renderShowDetailsScreen(order: PaymentOrderView, token: string): string {
  const amount = `${formatAmount(order.amount)} ${order.currency}`;
  return `<h1>Complete your payment</h1>
<p class="reference">Order ${escapeHtml(order.order_id)}</p>
<section class="card">
  <p class="label">Amount to pay</p>
  <p class="${amount.length > LONG_AMOUNT_CHARACTERS ? 'amount long' : 'amount'}" data-testid="amount">${escapeHtml(amount)}</p>
</section>
<section class="card">
  <p class="intro">Press the button to see where to send the money. A recipient is then reserved for this payment and the time to pay starts showing.</p>
  ${detailsForm(token, 'Show payment details', 'show-details-button')}
</section>`;
}

/** The form that asks for an agent: a plain post, so it works without the page script. */
function detailsForm(token: string, label: string, testId: string): string {
  return `<form method="post" action="${escapeHtml(`${payerPagePath(token)}/details`)}" data-details-form>
    <button class="button" type="submit" data-testid="${testId}">${escapeHtml(label)}</button>
  </form>`;
}

/** Hidden until the page script finds a clipboard to write to. */
function copyButton(value: string, what: string): string {
  return `<button class="copy" type="button" data-copy="${escapeHtml(value)}" aria-label="Copy ${escapeHtml(what)}" hidden>Copy</button>`;
}

/** A status card: what happened, what to do now, and which payment it is about when there is one. */
function renderResultCard(screen: ResultScreen, order: PaymentOrderView | null, token: string, returnLink: string | null = null): string {
  const paragraphs = screen
    .messages(order)
    .map((message) => `  <p>${escapeHtml(message)}</p>`)
    .join('\n');
  const summary = order
    ? `\n  <p class="summary"><strong data-testid="amount">${escapeHtml(`${formatAmount(order.amount)} ${order.currency}`)}</strong><span>Order ${escapeHtml(order.order_id)}</span></p>`
    : '';
  const reload = screen.reload
    ? `\n  <a class="button${screen.reload.primary ? '' : ' secondary'}" href="${escapeHtml(payerPagePath(token))}" data-testid="reload-button">${escapeHtml(screen.reload.label)}</a>`
    : '';
  const retryDetails = screen.retryDetails ? `\n  ${detailsForm(token, screen.retryDetails.label, 'retry-details-button')}` : '';
  const back = returnLink ? `\n  <a class="button" href="${escapeHtml(returnLink)}" data-testid="return-link">Return to the shop</a>` : '';
  return `<section class="card result">
  <span class="badge ${screen.badge}" aria-hidden="true">${escapeHtml(screen.symbol)}</span>
  <h1 data-testid="result-heading">${escapeHtml(screen.heading)}</h1>
${paragraphs}${summary}${reload}${retryDetails}${back}
</section>`;
}
