import { Controller, Get, Logger, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  PAYMENT_COMMAND_TYPES,
  payerPageTokenHash,
  type CommandReplyData,
  type MarkPaidByPayerData,
  type OpenPayerPageData,
  type PaymentCommandType,
} from '@mp/contracts-payments';
import { PayerPageTokenParam } from '@mp/shared-nest-http';
import { DomainError, type ErrorCode } from '@mp/shared-util-errors';
import { PAYER_PAGE_TOKEN_PATTERN } from '@mp/shared-util-validation';
import { MerchantCredentialStore } from '@mp/access-infrastructure';
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { ServiceCommandBus } from '../commands/service-command.bus';
import { PaymentsClient } from '../payments/payments.client';
import { payerPageContentSecurityPolicy, payerPagePath } from './payer-page.html';
import { renderPayerErrorPage, renderPayerPage, type PayerErrorPageKind } from './payer-page.template';
import type { PayerPageView } from './payer-page.view';

const NOT_FOUND_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['NOT_FOUND', 'ORDER_NOT_FOUND']);

/** The query flag the page is redirected to when the payer asked for details and no agent was free. */
const NO_AGENT_YET_QUERY = 'no_agent_yet';

/**
 * The payer page at `redirect_url`: server-rendered HTML that works without JavaScript.
 *
 * GET never changes the order: link previews, mail scanners and prefetchers fetch links, so a
 * view only reads. The agent is assigned (and its payment details shown) when the payer presses
 * "Show payment details", a plain form POST.
 *
 * The token in the path is the payer's only credential. Nothing is signed and no cookie is set,
 * so a cross-site form has no session to borrow: whoever can post here already holds the link.
 * Still, a state change must come from the page itself, not from a page elsewhere that learnt
 * the link (e.g. from a Referer or a shared chat): browsers mark every request with
 * `Sec-Fetch-Site`, and a POST marked as coming from another site changes nothing and lands on
 * the page, where the payer can press the button. Requests without the header (older browsers,
 * scripts holding the link) are allowed: they could do the same by sending it without one.
 * Errors on the HTML routes become HTML pages, not the merchant API's JSON error body.
 */
@Controller('pay')
export class PayerPageController {
  private readonly logger = new Logger(PayerPageController.name);

  constructor(
    private readonly commandBus: ServiceCommandBus,
    private readonly payments: PaymentsClient,
    private readonly merchants: MerchantCredentialStore,
  ) {}

  /** Shows the order as it is: amount and a "Show payment details" button until an agent is assigned. Reads only. */
  @Get(':token')
  async show(@Param('token') token: string, @Query(NO_AGENT_YET_QUERY) noAgentYet: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await this.answerWithHtml(reply, token, async (nonce) => {
      const view = await this.payments.getPayerPage(token);
      const returnUrl = await this.returnUrlOf(view);
      await sendHtml(reply, 200, nonce, renderPayerPage({ ...view, returnUrl }, { token, nonce, now: new Date(), agentRequested: noAgentYet !== undefined }));
    });
  }

  /**
   * "Show payment details", as a plain form post with no body: assigns an agent if none is yet,
   * then 303 back to the page (post/redirect/get), which shows the agent's details. When no
   * agent is free the page is told so, and offers the button again.
   */
  @Post(':token/details')
  async requestDetails(@Param('token') token: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answerWithHtml(reply, token, async () => {
      if (isFromAnotherSite(request)) return redirectToPage(reply, token);
      await this.openPayerPage(token, request);
      const view = await this.payments.getPayerPage(token);
      await redirectToPage(reply, token, needsAgent(view));
    });
  }

  /**
   * "I have paid", as a plain form post with no body. Answered with 303 back to the page
   * (post/redirect/get), which then shows the order as it really is: a refusal because the
   * order expired or was cancelled meanwhile needs no screen of its own.
   */
  @Post(':token/paid')
  async markPaid(@Param('token') token: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answerWithHtml(reply, token, async () => {
      if (isFromAnotherSite(request)) return redirectToPage(reply, token);
      const outcome = await this.execute(
        PAYMENT_COMMAND_TYPES.markPaidByPayer,
        { payerPageTokenHash: payerPageTokenHash(token) } satisfies MarkPaidByPayerData,
        request,
      );
      if (outcome.outcome === 'rejected') this.acceptStateRefusal(outcome.error.code, 'MarkPaidByPayer', outcome.error.message);
      await redirectToPage(reply, token);
    });
  }

  /** Polled by the page script; JSON errors here are fine, only the script reads them. */
  @Get(':token/status')
  async status(@Param('token', PayerPageTokenParam) token: string, @Res() reply: FastifyReply): Promise<void> {
    const { order } = await this.payments.getPayerPage(token);
    await reply
      .status(200)
      .type('application/json')
      .send(JSON.stringify({ status: order.status, sub_status: order.sub_status }));
  }

  /**
   * A final order's way back to the shop: its own return_url, else the merchant's default as it
   * is now (read only for a final order, so a pending page costs no extra read). Null: no link.
   */
  private async returnUrlOf(view: PayerPageView & { merchant_id: string }): Promise<string | null> {
    if (view.order.status === 'PENDING') return null;
    if (view.order.return_url) return view.order.return_url;
    return (await this.merchants.findProfile(view.merchant_id))?.default_return_url ?? null;
  }

  /**
   * Asks for an agent. No agent being free is not an error (the page says so and offers a
   * retry), and neither is the payments service not answering in time: the page is rendered
   * from the read either way, and the payer's retry sends the command again.
   */
  private async openPayerPage(token: string, request: GatewayRequest): Promise<void> {
    let outcome: CommandReplyData;
    try {
      outcome = await this.execute(PAYMENT_COMMAND_TYPES.openPayerPage, { payerPageTokenHash: payerPageTokenHash(token) } satisfies OpenPayerPageData, request);
    } catch (error) {
      if (!(error instanceof DomainError) || error.code !== 'SERVICE_UNAVAILABLE') throw error;
      this.logger.warn(`OpenPayerPage got no answer in time (request ${request.requestId}); showing the page as read`);
      return;
    }
    if (outcome.outcome === 'rejected') this.acceptStateRefusal(outcome.error.code, 'OpenPayerPage', outcome.error.message);
  }

  /** Only the token's hash goes on Kafka: a reader of the topic must not be able to use the page. */
  private execute(type: PaymentCommandType, data: OpenPayerPageData | MarkPaidByPayerData, request: GatewayRequest): Promise<CommandReplyData> {
    const hash = data.payerPageTokenHash;
    return this.commandBus.execute(type, data, { key: `payer-page/${hash}`, subject: `payer-page:${hash}`, correlationId: request.requestId ?? 'unknown' });
  }

  /** A refusal means the order moved on (finished, or no agent yet); the page read shows how. An unknown page stays unknown. */
  private acceptStateRefusal(code: ErrorCode, command: string, message: string): void {
    if (NOT_FOUND_CODES.has(code)) throw new DomainError(code, message);
    this.logger.log(`${command} refused with ${code}: ${message}`);
  }

  /** Runs an HTML route, answering unknown tokens with a 404 page and an unreachable payments service with a 503 page. */
  private async answerWithHtml(reply: FastifyReply, token: string, answer: (nonce: string) => Promise<void>): Promise<void> {
    const nonce = randomBytes(16).toString('base64');
    const errorPage = (kind: PayerErrorPageKind, status: number) => sendHtml(reply, status, nonce, renderPayerErrorPage(kind, { nonce, token }));
    // The HTML routes check the token here, against the pattern PayerPageTokenParam uses: a pipe's
    // refusal would be the JSON error body, and a payer must get a page.
    if (!PAYER_PAGE_TOKEN_PATTERN.test(token)) return errorPage('not_found', 404);
    try {
      await answer(nonce);
    } catch (error) {
      if (!(error instanceof DomainError)) throw error;
      if (NOT_FOUND_CODES.has(error.code)) return errorPage('not_found', 404);
      if (error.code === 'SERVICE_UNAVAILABLE') {
        void reply.header('retry-after', '1');
        return errorPage('unavailable', 503);
      }
      throw error;
    }
  }
}

/** Only an open order without an agent needs one. */
function needsAgent(view: PayerPageView): boolean {
  return view.order.status === 'PENDING' && view.agent === null;
}

/**
 * A state change posted by a page on another site (fetch metadata, sent by every current
 * browser). Only same-origin posts from the page itself count; a missing header is not a
 * browser's cross-site request.
 */
export function isFromAnotherSite(request: GatewayRequest): boolean {
  const site = request.headers['sec-fetch-site'];
  return site !== undefined && site !== 'same-origin';
}

/** Post/redirect/get back to the page, optionally telling it that no agent was free. */
async function redirectToPage(reply: FastifyReply, token: string, noAgentYet = false): Promise<void> {
  await reply
    .status(303)
    .header('location', `${payerPagePath(token)}${noAgentYet ? `?${NO_AGENT_YET_QUERY}` : ''}`)
    .send();
}

async function sendHtml(reply: FastifyReply, status: number, nonce: string, html: string): Promise<void> {
  await reply
    .status(status)
    .header('content-security-policy', payerPageContentSecurityPolicy(nonce))
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .type('text/html; charset=utf-8')
    .send(html);
}
