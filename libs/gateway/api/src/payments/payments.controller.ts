import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import { ApiOperation, ApiProduces, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { linksById } from '../openapi/response-links';
import {
  PAYMENT_COMMAND_TYPES,
  payerLinkContext,
  paymentOrderKey,
  type CommandReplyData,
  type PaymentCommandDataByType,
  type PaymentCommandType,
  type PaymentOrderView,
} from '@mp/contracts-payments';
import { OrderIdParam, ReceiptIdParam } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { ProcessSealer } from '@mp/shared-util-secret-box';
import { IsPlainText, PLAIN_TEXT_PATTERN, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { CurrentMerchant, type AuthenticatedMerchant, type GatewayRequest } from '../auth/merchant-signature.guard';
import { ApiErrorResponses } from '../openapi/error.response';
import { MerchantApi } from '../openapi/merchant-api.decorator';
import { ApiListFiltersBody } from '../openapi/request-schemas';
import { CreateIncomingPaymentBody, CreateOutgoingPaymentBody, toCreateIncomingPaymentData, toCreateOutgoingPaymentData } from './create-payment.request';
import { ListFiltersBody, toListFilters } from './list-filters.request';
import { ServiceCommandBus, PAYMENTS_COMMAND_ROUTE } from '../commands/service-command.bus';
import { PaymentOrderListResponse, PaymentOrderResponse, PayoutReceiptListResponse } from './payment-order.response';
import { PaymentsClient } from './payments.client';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';

/** On a create answered with the order an earlier request with the same order_id created. */
const IDEMPOTENT_REPLAYED = 'idempotent-replayed';

/** Endpoint 6's body: `{}`, or an optional reason. */
@RequestMessages({ invalid: 'The cancel body takes only an optional reason' })
class CancelBody {
  @ApiPropertyOptional({
    minLength: 1,
    maxLength: 500,
    pattern: PLAIN_TEXT_PATTERN.source,
    description: 'Plain text: not blank, no control characters but tab and line breaks',
  })
  @IsOptional()
  @IsPlainText(500)
  reason?: string;
}

/** Endpoints 1 and 2: a retry answered with the order an earlier request created says so. */
const IDEMPOTENT_REPLAYED_HEADER_DOC = {
  'Idempotent-Replayed': {
    description: '`true` when this order_id already named this order and nothing new was created',
    schema: { type: 'string', example: 'true' },
  },
};

const RECEIPT_FILE_CONTENT = Object.fromEntries(
  ['application/pdf', 'image/png', 'image/jpeg'].map((type) => [type, { schema: { type: 'string', format: 'binary' } }]),
);

/** Spec endpoints 1 to 7. Writes go to the payments service as commands; reads over its internal API. */
@Controller('v2/payments')
@MerchantApi('Payments')
export class PaymentsController {
  /** This process's key pair: payments seals each pay-in's link in the command reply for it alone. */
  private readonly payerLinks = new ProcessSealer();

  constructor(
    private readonly commandBus: ServiceCommandBus,
    private readonly payments: PaymentsClient,
    private readonly destinations: CallbackDestinationPolicy,
  ) {}

  /** Endpoint 1. Every answer for one order_id is the same 201 with the same order (spec 4.3). */
  @Post('incoming')
  @ApiOperation({
    operationId: 'createIncomingPayment',
    summary: 'Create an incoming payment (pay-in)',
    description:
      'Idempotent by order_id: a retry with the same amount and currency answers the same 201 with the same order; another amount or currency is 409 DUPLICATE_ORDER. Send the payer to `redirect_url`.',
  })
  @ApiResponse({
    status: 201,
    type: PaymentOrderResponse,
    description: 'The order, new or the one this order_id already names',
    headers: IDEMPOTENT_REPLAYED_HEADER_DOC,
    links: linksById('order_id', 'orderId', ['getPaymentStatus', 'cancelPayment']),
  })
  @ApiErrorResponses('PAYMENT_REJECTED', 'DUPLICATE_ORDER')
  async createIncoming(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateIncomingPaymentBody,
    @Req() request: GatewayRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PaymentOrderView> {
    await this.destinations.assertAcceptable(merchant.merchantId, body.callback_url, 'callback_url');
    await this.destinations.assertAcceptable(merchant.merchantId, body.return_url, 'return_url');
    const data = toCreateIncomingPaymentData(merchant.merchantId, body);
    const { order, replayed } = await this.runOrderCommand(PAYMENT_COMMAND_TYPES.createIncomingPayment, data, request);
    if (replayed) reply.header(IDEMPOTENT_REPLAYED, 'true');
    return order;
  }

  /** Endpoint 2. The amount plus fee is frozen before the order exists; without it, 400 INSUFFICIENT_FUNDS and no order. */
  @Post('outgoing')
  @ApiOperation({
    operationId: 'createOutgoingPayment',
    summary: 'Create an outgoing payment (payout)',
    description:
      'Freezes amount plus fee of the settlement balance before the order exists (400 INSUFFICIENT_FUNDS otherwise, and no order). Idempotent by order_id like pay-ins.',
  })
  @ApiResponse({
    status: 201,
    type: PaymentOrderResponse,
    description: 'The order, new or the one this order_id already names',
    headers: IDEMPOTENT_REPLAYED_HEADER_DOC,
    links: linksById('order_id', 'orderId', ['getPaymentStatus', 'cancelPayment', 'listPayoutReceipts']),
  })
  @ApiErrorResponses('PAYMENT_REJECTED', 'INSUFFICIENT_FUNDS', 'DUPLICATE_ORDER')
  async createOutgoing(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateOutgoingPaymentBody,
    @Req() request: GatewayRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<PaymentOrderView> {
    await this.destinations.assertAcceptable(merchant.merchantId, body.callback_url, 'callback_url');
    const { accountNumber, ...data } = toCreateOutgoingPaymentData(merchant.merchantId, body);
    // The full account number goes to payments' encrypted store over HTTP, never onto Kafka.
    const { reference } = await this.payments.storeRecipientAccount(merchant.merchantId, accountNumber);
    const { order, replayed } = await this.runOrderCommand(PAYMENT_COMMAND_TYPES.createOutgoingPayment, { ...data, recipientAccountRef: reference }, request);
    if (replayed) reply.header(IDEMPOTENT_REPLAYED, 'true');
    return order;
  }

  /** Endpoint 3: searches both directions; another merchant's order is not found, like a missing one. */
  @Get('status/:orderId')
  @ApiOperation({ operationId: 'getPaymentStatus', summary: 'Order state (searches incoming and outgoing)' })
  @ApiResponse({ status: 200, type: PaymentOrderResponse })
  @ApiErrorResponses('ORDER_NOT_FOUND')
  async getStatus(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('orderId', OrderIdParam) orderId: string): Promise<PaymentOrderView> {
    return this.payments.getOrder(merchant.merchantId, orderId);
  }

  /** Endpoints 4 and 5: newest first, cursor pages, list items equal state objects. */
  @Post('incoming/list')
  @HttpCode(200)
  @ApiListFiltersBody(ListFiltersBody, 'SUCCEEDED')
  @ApiOperation({ operationId: 'listIncomingPayments', summary: 'List incoming payments, newest first' })
  @ApiResponse({ status: 200, type: PaymentOrderListResponse })
  @ApiErrorResponses()
  async listIncoming(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() filters: ListFiltersBody) {
    return this.payments.listOrders(merchant.merchantId, 'incoming', toListFilters(filters));
  }

  @Post('outgoing/list')
  @HttpCode(200)
  @ApiListFiltersBody(ListFiltersBody, 'SUCCEEDED')
  @ApiOperation({ operationId: 'listOutgoingPayments', summary: 'List outgoing payments, newest first' })
  @ApiResponse({ status: 200, type: PaymentOrderListResponse })
  @ApiErrorResponses()
  async listOutgoing(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() filters: ListFiltersBody) {
    return this.payments.listOrders(merchant.merchantId, 'outgoing', toListFilters(filters));
  }

  /**
   * Endpoint 6, both directions. The body is required and signed with the path; `{}` is fine,
   * and an optional `reason` is the only field. A finished order is 409 ORDER_NOT_CANCELLABLE.
   */
  @Post(':orderId/cancel')
  @HttpCode(200)
  @ApiOperation({
    operationId: 'cancelPayment',
    summary: 'Cancel an order',
    description: 'The body is required (`{}` is fine) and signed with the path, so a signature for cancelling one order is not valid for another.',
  })
  @ApiResponse({ status: 200, type: PaymentOrderResponse, description: 'The order, CANCELLED' })
  @ApiErrorResponses('ORDER_NOT_FOUND', 'ORDER_NOT_CANCELLABLE')
  async cancel(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('orderId', OrderIdParam) orderId: string,
    @Body() _body: CancelBody,
    @Req() request: GatewayRequest,
  ): Promise<PaymentOrderView> {
    const data = { merchantId: merchant.merchantId, orderId };
    return (await this.runOrderCommand(PAYMENT_COMMAND_TYPES.cancelPaymentOrder, data, request)).order;
  }

  /** Endpoint 7: outgoing orders only; each entry links to its file. */
  @Get(':orderId/receipts')
  @ApiOperation({ operationId: 'listPayoutReceipts', summary: 'Payout receipts (outgoing orders only)' })
  @ApiResponse({ status: 200, type: PayoutReceiptListResponse })
  @ApiErrorResponses('ORDER_NOT_FOUND')
  async receipts(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('orderId', OrderIdParam) orderId: string) {
    const { data } = await this.payments.getReceipts(merchant.merchantId, orderId);
    return { data: data.map((receipt) => ({ ...receipt, download_path: `/v2/payments/${encodeURIComponent(orderId)}/receipts/${receipt.receipt_id}` })) };
  }

  /** The receipt file itself, for the merchant who owns the payout. */
  @Get(':orderId/receipts/:receiptId')
  @ApiOperation({ operationId: 'downloadPayoutReceipt', summary: 'Download one payout receipt file' })
  @ApiProduces('application/pdf', 'image/png', 'image/jpeg')
  @ApiResponse({ status: 200, description: 'The file, as the agent uploaded it', content: RECEIPT_FILE_CONTENT })
  @ApiErrorResponses('ORDER_NOT_FOUND', 'NOT_FOUND')
  async receiptFile(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Param('orderId', OrderIdParam) orderId: string,
    @Param('receiptId', ReceiptIdParam) receiptId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const { data } = await this.payments.getReceipts(merchant.merchantId, orderId);
    if (!data.some((receipt) => receipt.receipt_id === receiptId)) throw new DomainError('NOT_FOUND', 'No such receipt on this order');
    const file = await this.payments.downloadReceipt(receiptId);
    await reply
      .status(200)
      .type(file.contentType)
      .header('content-disposition', file.disposition ?? 'attachment')
      .send(file.content);
  }

  private async runOrderCommand<T extends PaymentCommandType>(
    type: T,
    data: PaymentCommandDataByType[T] & { merchantId: string; orderId: string },
    request: GatewayRequest,
  ): Promise<{ order: PaymentOrderView; replayed: boolean }> {
    const { merchantId, orderId } = data;
    const command = type === PAYMENT_COMMAND_TYPES.createOutgoingPayment ? data : { ...data, payerLinkKey: this.payerLinks.publicKey };
    const outcome = await this.commandBus.run<CommandReplyData>(PAYMENTS_COMMAND_ROUTE, type, command, {
      key: paymentOrderKey(merchantId, orderId),
      subject: `merchant:${merchantId}/order:${orderId}`,
      correlationId: request.requestId ?? 'unknown',
    });
    // Only on a replay, as Stripe does: a first create has no header at all (docs/api/endpoints.md).
    const replayed = outcome.replayed === true;
    if (outcome.order.direction !== 'incoming') return { order: outcome.order, replayed };
    // Kafka never carries the payer-page link in the clear (it is the payer's credential):
    // payments seals it for this process (see PayerPageLinks.sealedUrlFor), on every reply to a
    // command that names this process's key.
    const redirect_url = outcome.sealedPayerLink ? this.payerLinks.open(outcome.sealedPayerLink, payerLinkContext(merchantId, orderId)) : null;
    if (redirect_url === null) throw new Error(`the reply to ${type} (request ${request.requestId}) carries no payer link this process opens`);
    return { order: { ...outcome.order, redirect_url }, replayed };
  }
}
