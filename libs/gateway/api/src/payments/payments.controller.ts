import { Body, Controller, Get, Logger, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { PAYMENT_COMMAND_TYPES, payerLinkContext, paymentOrderKey, type CommandReplyData, type PaymentCommandDataByType, type PaymentCommandType } from '@mp/contracts-payments';
import { OrderIdParam, ReceiptIdParam } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { ProcessSealer } from '@mp/shared-util-secret-box';
import { IsPlainText, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { CurrentMerchant, MerchantSignatureGuard, type AuthenticatedMerchant, type GatewayRequest } from '../auth/merchant-signature.guard';
import { stringifyResponse } from '../http/json-body';
import { CreateIncomingPaymentBody, CreateOutgoingPaymentBody, toCreateIncomingPaymentData, toCreateOutgoingPaymentData } from './create-payment.request';
import { ListFiltersBody, toListFilters } from './list-filters.request';
import { PaymentCommandBus } from './payment-command.bus';
import { PaymentsReadClient } from './payments-read.client';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';

/** On a create answered with the order an earlier request with the same order_id created. */
const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';

/** Endpoint 6's body: `{}`, or an optional reason. */
@RequestMessages({ invalid: 'The cancel body takes only an optional reason' })
class CancelBody {
  @ApiPropertyOptional({ maxLength: 500 })
  @IsOptional()
  @IsPlainText(500)
  reason?: string;
}

/** Spec endpoints 1 to 7. Writes go to the payments service as commands; reads over its internal API. */
@Controller('v2/payments')
@UseGuards(MerchantSignatureGuard)
export class PaymentsController {
  private readonly logger = new Logger(PaymentsController.name);
  /** This process's key pair: payments seals each pay-in's link in the command reply for it alone. */
  private readonly payerLinks = new ProcessSealer();

  constructor(
    private readonly commandBus: PaymentCommandBus,
    private readonly reads: PaymentsReadClient,
    private readonly destinations: CallbackDestinationPolicy,
  ) {}

  /** Endpoint 1. Every answer for one order_id is the same 201 with the same order (spec 4.3). */
  @Post('incoming')
  async createIncoming(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: CreateIncomingPaymentBody, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.destinations.assertAcceptable(merchant.merchantId, body.callback_url, 'callback_url');
    const data = toCreateIncomingPaymentData(merchant.merchantId, body);
    const { order, replayed } = await this.runOrderCommand(PAYMENT_COMMAND_TYPES.createIncomingPayment, data, request);
    if (replayed) reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    await send(reply, 201, order);
  }

  /** Endpoint 2. The amount plus fee is frozen before the order exists; without it, 400 INSUFFICIENT_FUNDS and no order. */
  @Post('outgoing')
  async createOutgoing(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: CreateOutgoingPaymentBody, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.destinations.assertAcceptable(merchant.merchantId, body.callback_url, 'callback_url');
    const { accountNumber, ...data } = toCreateOutgoingPaymentData(merchant.merchantId, body);
    // The full account number goes to payments' encrypted store over HTTP, never onto Kafka.
    const { reference } = await this.reads.storeRecipientAccount(merchant.merchantId, accountNumber);
    const { order, replayed } = await this.runOrderCommand(PAYMENT_COMMAND_TYPES.createOutgoingPayment, { ...data, recipientAccountRef: reference }, request);
    if (replayed) reply.header(IDEMPOTENT_REPLAYED_HEADER, 'true');
    await send(reply, 201, order);
  }

  /** Endpoint 3: searches both directions; another merchant's order is not found, like a missing one. */
  @Get('status/:orderId')
  async getStatus(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('orderId', OrderIdParam) orderId: string, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, 200, await this.reads.getOrder(merchant.merchantId, orderId));
  }

  /** Endpoints 4 and 5: newest first, cursor pages, list items equal state objects. */
  @Post('incoming/list')
  async listIncoming(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() filters: ListFiltersBody, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, 200, await this.reads.listOrders(merchant.merchantId, 'incoming', toListFilters(filters)));
  }

  @Post('outgoing/list')
  async listOutgoing(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() filters: ListFiltersBody, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, 200, await this.reads.listOrders(merchant.merchantId, 'outgoing', toListFilters(filters)));
  }

  /**
   * Endpoint 6, both directions. The body is required and signed with the path; `{}` is fine,
   * and an optional `reason` is the only field. A finished order is 409 ORDER_NOT_CANCELLABLE.
   */
  @Post(':orderId/cancel')
  async cancel(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('orderId', OrderIdParam) orderId: string, @Body() _body: CancelBody, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const data = { merchantId: merchant.merchantId, orderId };
    await send(reply, 200, (await this.runOrderCommand(PAYMENT_COMMAND_TYPES.cancelPaymentOrder, data, request)).order);
  }

  /** Endpoint 7: outgoing orders only; each entry links to its file. */
  @Get(':orderId/receipts')
  async receipts(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('orderId', OrderIdParam) orderId: string, @Res() reply: FastifyReply): Promise<void> {
    const { data } = await this.reads.getReceipts(merchant.merchantId, orderId);
    const withLinks = data.map((receipt) => ({ ...receipt, download_path: `/v2/payments/${encodeURIComponent(orderId)}/receipts/${receipt.receipt_id}` }));
    await send(reply, 200, { data: withLinks });
  }

  /** The receipt file itself, for the merchant who owns the payout. */
  @Get(':orderId/receipts/:receiptId')
  async receiptFile(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('orderId', OrderIdParam) orderId: string,
    @Param('receiptId', ReceiptIdParam) receiptId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { data } = await this.reads.getReceipts(merchant.merchantId, orderId);
    if (!data.some((receipt) => receipt.receipt_id === receiptId)) throw new DomainError('NOT_FOUND', 'No such receipt on this order');
    const file = await this.reads.downloadReceipt(receiptId);
    await reply.status(200).type(file.contentType).header('content-disposition', file.disposition ?? 'attachment').send(file.content);
  }

  private async runOrderCommand<T extends PaymentCommandType>(type: T, data: PaymentCommandDataByType[T] & { merchantId: string; orderId: string }, request: GatewayRequest) {
    const { merchantId, orderId } = data;
    const command = type === PAYMENT_COMMAND_TYPES.createOutgoingPayment ? data : { ...data, payerLinkKey: this.payerLinks.publicKey };
    const outcome: CommandReplyData = await this.commandBus.execute(type, command, {
      key: paymentOrderKey(merchantId, orderId),
      subject: `merchant:${merchantId}/order:${orderId}`,
      correlationId: request.requestId ?? 'unknown',
    });
    if (outcome.outcome === 'rejected') throw DomainError.fromDescription(outcome.error);
    // Only on a replay, as Stripe does: a first create has no header at all (docs/api/endpoints.md).
    const replayed = outcome.replayed === true;
    if (outcome.order.direction !== 'incoming') return { order: outcome.order, replayed };
    // Kafka never carries the payer-page link in the clear (it is the payer's credential):
    // payments seals it for this process (see PayerPageLinks.sealedUrlFor). A reply without
    // it (a payments release before sealed links) falls back to the internal API's read.
    const sealed = outcome.sealedPayerLink ? this.payerLinks.open(outcome.sealedPayerLink, payerLinkContext(merchantId, orderId)) : null;
    if (outcome.sealedPayerLink && sealed === null) this.logger.warn(`the sealed payer link of ${type} (request ${request.requestId}) did not open; reading it instead`);
    const redirect_url = sealed ?? (await this.reads.getOrder(merchantId, orderId)).redirect_url;
    return { order: { ...outcome.order, redirect_url }, replayed };
  }
}

async function send(reply: FastifyReply, status: number, body: unknown): Promise<void> {
  await reply.status(status).type('application/json').send(stringifyResponse(body));
}
