import { Controller, Get, Logger, Param, Post, Req, Res } from '@nestjs/common';
import { PAYMENT_COMMAND_TYPES, payerPageTokenHash, type CommandReplyData, type MarkPaidByPayerData, type OpenPayerPageData, type PaymentCommandType } from '@mp/contracts-payments';
import { DomainError, type ErrorCode } from '@mp/shared-util-errors';
import { randomBytes } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { PaymentCommandBus } from '../payments/payment-command.bus';
import { PaymentsReadClient } from '../payments/payments-read.client';
import { payerPageContentSecurityPolicy, payerPagePath } from './payer-page.html';
import { renderPayerErrorPage, renderPayerPage, type PayerErrorPageKind } from './payer-page.template';
import type { PayerPageView } from './payer-page.view';

/** Tokens are base64url (payments service); anything else is not a page and never reaches a service. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
const NOT_FOUND_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>(['NOT_FOUND', 'ORDER_NOT_FOUND']);

/**
 * The payer page at `redirect_url`: server-rendered HTML that works without JavaScript.
 *
 * The token in the path is the payer's only credential. Nothing is signed and no cookie is set,
 * so a cross-site form has nothing to borrow: whoever can post here already holds the link.
 * Errors on the HTML routes become HTML pages, not the merchant API's JSON error body.
 */
@Controller('pay')
export class PayerPageController {
  private readonly logger = new Logger(PayerPageController.name);

  constructor(
    private readonly commandBus: PaymentCommandBus,
    private readonly reads: PaymentsReadClient,
  ) {}

  /** Opening the page is what assigns an agent, so the first view already shows where to pay. */
  @Get(':token')
  async show(@Param('token') token: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.answerWithHtml(reply, token, async (nonce) => {
      let view = await this.reads.getPayerPage(token);
      if (needsAgent(view)) {
        await this.openPayerPage(token, request);
        view = await this.reads.getPayerPage(token);
      }
      await sendHtml(reply, 200, nonce, renderPayerPage(view, { token, nonce, now: new Date() }));
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
      const outcome = await this.execute(PAYMENT_COMMAND_TYPES.markPaidByPayer, { payerPageTokenHash: payerPageTokenHash(token) } satisfies MarkPaidByPayerData, request);
      if (outcome.outcome === 'rejected') this.acceptStateRefusal(outcome.error.code, 'MarkPaidByPayer', outcome.error.message);
      await reply.status(303).header('location', payerPagePath(token)).header('cache-control', 'no-store').send();
    });
  }

  /** Polled by the page script; JSON errors here are fine, only the script reads them. */
  @Get(':token/status')
  async status(@Param('token') token: string, @Res() reply: FastifyReply): Promise<void> {
    if (!TOKEN_PATTERN.test(token)) throw new DomainError('NOT_FOUND', 'No such payment page');
    const { order } = await this.reads.getPayerPage(token);
    await reply
      .status(200)
      .header('cache-control', 'no-store')
      .type('application/json')
      .send(JSON.stringify({ status: order.status, sub_status: order.sub_status }));
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
    if (!TOKEN_PATTERN.test(token)) return errorPage('not_found', 404);
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

/** Only an open order without an agent needs one; a reload of an assigned page costs no command. */
function needsAgent(view: PayerPageView): boolean {
  return view.order.status === 'PENDING' && view.agent === null;
}

async function sendHtml(reply: FastifyReply, status: number, nonce: string, html: string): Promise<void> {
  await reply
    .status(status)
    .header('content-security-policy', payerPageContentSecurityPolicy(nonce))
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .header('x-frame-options', 'DENY')
    .type('text/html; charset=utf-8')
    .send(html);
}
