import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import type { BackofficePrincipal } from '@mp/access-infrastructure';
import {
  agentViewOf,
  PAYMENT_COMMAND_TYPES,
  paymentOrderKey,
  type AgentOrderActionData,
  type CommandReplyData,
  type PaymentCommandType,
} from '@mp/contracts-payments';
import { OrderIdParam, OrderMerchantIdParam, RequestOptions } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { IsPlainText, MatchesPattern, RECEIPT_ID_PATTERN, RequestMessages, Trim } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { Readable } from 'node:stream';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { RECEIPT_UPLOAD_BODY_BYTES_MAX } from '../gateway-settings';
import { streamWithinLimit } from '../http/refused-body';
import { AgentOrdersQuery, toListFilters } from '../payments/list-filters.request';
import { ServiceCommandBus, PAYMENTS_COMMAND_ROUTE } from '../commands/service-command.bus';
import { PaymentsClient } from '../payments/payments.client';
import { BackofficeGuard, CurrentPrincipal, Roles } from './backoffice.guard';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';

/** Optional: no body declines with the default reason. */
@RequestOptions({ emptyBodyIsEmptyObject: true })
@RequestMessages({ invalid: 'The decline reason is not valid' })
class DeclineBody {
  @ApiPropertyOptional({ maxLength: 500, default: 'declined by agent' })
  @IsOptional()
  @Trim()
  @IsPlainText(500)
  reason?: string;
}

@RequestMessages({ invalid: 'Upload the receipt first and pass its receipt_id' })
class CompletePayoutBody {
  @ApiProperty({ description: 'The receipt_id the upload answered', pattern: RECEIPT_ID_PATTERN.source })
  @MatchesPattern(RECEIPT_ID_PATTERN, 'must be the receipt_id of an uploaded receipt')
  receipt_id!: string;
}

/**
 * What payment agents do: see their orders and the payouts they could take, take one, confirm
 * or decline a pay-in, complete a payout with a receipt or decline it. An agent never sees or
 * touches another agent's order: it is not found, in the very answer a missing order gets.
 */
@BackofficeApiDocs('Agent orders')
@Controller('backoffice/v1/agent')
@UseGuards(BackofficeGuard)
@Roles('agent')
export class AgentController {
  constructor(
    private readonly commandBus: ServiceCommandBus,
    private readonly payments: PaymentsClient,
  ) {}

  /** `?scope=assigned` (default) or `available`, plus the list filters as query parameters. */
  @Get('orders')
  @ApiOperation({ operationId: 'listAgentOrders', summary: "List the agent's orders, or the payouts it could take" })
  @ApiResponse({ status: 200, description: 'A page of orders' })
  async list(@CurrentPrincipal() agent: BackofficePrincipal, @Query() query: AgentOrdersQuery): Promise<unknown> {
    return await this.payments.listAgentOrders(agentIdOf(agent), query.scope ?? 'assigned', toListFilters(query));
  }

  @Get('orders/:merchantId/:orderId')
  @ApiOperation({ operationId: 'getAgentOrder', summary: "Get one of the agent's orders" })
  @ApiResponse({ status: 200, description: 'The order as the agent sees it' })
  @BackofficeApiErrorResponses('ORDER_NOT_FOUND')
  async get(
    @CurrentPrincipal() agent: BackofficePrincipal,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
  ): Promise<unknown> {
    return await this.payments.getAgentOrder(agentIdOf(agent), merchantId, orderId);
  }

  @HttpCode(200)
  @Post('orders/:merchantId/:orderId/take')
  @ApiOperation({ operationId: 'takeOrder', summary: 'Take an available payout' })
  @ApiResponse({ status: 200, description: "The order, now the agent's" })
  @BackofficeApiErrorResponses('ORDER_NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async take(
    @CurrentPrincipal() agent: BackofficePrincipal,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Req() request: GatewayRequest,
  ): Promise<unknown> {
    return this.act(request, PAYMENT_COMMAND_TYPES.agentTakeOrder, { agentId: agentIdOf(agent), merchantId, orderId });
  }

  @HttpCode(200)
  @Post('orders/:merchantId/:orderId/confirm')
  @ApiOperation({ operationId: 'confirmPayIn', summary: 'Confirm that a pay-in arrived' })
  @ApiResponse({ status: 200, description: 'The order after the confirmation' })
  @BackofficeApiErrorResponses('ORDER_NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async confirm(
    @CurrentPrincipal() agent: BackofficePrincipal,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Req() request: GatewayRequest,
  ): Promise<unknown> {
    return this.act(request, PAYMENT_COMMAND_TYPES.agentConfirmPayIn, { agentId: agentIdOf(agent), merchantId, orderId });
  }

  /** The body is optional: `{"reason": "..."}`. */
  @HttpCode(200)
  @Post('orders/:merchantId/:orderId/decline')
  @ApiOperation({ operationId: 'declineOrder', summary: 'Decline a pay-in or payout' })
  @ApiResponse({ status: 200, description: 'The order after the decline' })
  @BackofficeApiErrorResponses('ORDER_NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async decline(
    @CurrentPrincipal() agent: BackofficePrincipal,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Body() body: DeclineBody,
    @Req() request: GatewayRequest,
  ): Promise<unknown> {
    return this.act(request, PAYMENT_COMMAND_TYPES.agentDeclineOrder, {
      agentId: agentIdOf(agent),
      merchantId,
      orderId,
      reason: body.reason ?? 'declined by agent',
    });
  }

  /**
   * The full recipient account number of a payout this agent has taken, the only place it is
   * shown; lists and order views show `•••• 1234`. Every reveal is recorded for operators.
   */
  @HttpCode(200)
  @Post('orders/:merchantId/:orderId/account-number')
  @ApiOperation({ operationId: 'revealAccountNumber', summary: "Show a taken payout's full recipient account number" })
  @ApiResponse({ status: 200, description: 'The full account number; the reveal is recorded' })
  @BackofficeApiErrorResponses('ORDER_NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async revealAccountNumber(
    @CurrentPrincipal() agent: BackofficePrincipal,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
  ): Promise<unknown> {
    return await this.payments.revealAccountNumber(agentIdOf(agent), merchantId, orderId);
  }

  /**
   * The raw file is the body (PDF, PNG or JPEG, at most RECEIPT_UPLOAD_BODY_BYTES_MAX, checked by
   * its bytes by payments); name in x-file-name. Sent as a file type, the body is streamed on to
   * payments as it arrives; any other content type is read whole within the same limit.
   */
  @Post('orders/:merchantId/:orderId/receipts')
  @ApiOperation({ operationId: 'uploadPayoutReceipt', summary: "Upload a payout's receipt (the raw PDF, PNG or JPEG is the body)" })
  @ApiResponse({ status: 201, description: 'The stored receipt' })
  @BackofficeApiErrorResponses('ORDER_NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async uploadReceipt(
    @CurrentPrincipal() agent: BackofficePrincipal,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Req() request: GatewayRequest,
  ): Promise<unknown> {
    const order = await this.payments.getAgentOrder(agentIdOf(agent), merchantId, orderId);
    if (order.direction !== 'outgoing') throw new DomainError('ORDER_NOT_FOUND', 'Receipts belong to payouts; this order is a pay-in');
    // Read only once the order is known to be the agent's: a refused upload leaves the body unread, for Node to discard.
    const content =
      request.body instanceof Readable
        ? streamWithinLimit(request.raw, request.body, RECEIPT_UPLOAD_BODY_BYTES_MAX)
        : Buffer.isBuffer(request.body)
          ? request.body
          : Buffer.alloc(0);
    const fileName = typeof request.headers['x-file-name'] === 'string' ? request.headers['x-file-name'] : 'receipt';
    return await this.payments.uploadReceipt(agentIdOf(agent), merchantId, orderId, fileName, content);
  }

  @HttpCode(200)
  @Post('orders/:merchantId/:orderId/complete')
  @ApiOperation({ operationId: 'completePayout', summary: 'Complete a payout with an uploaded receipt' })
  @ApiResponse({ status: 200, description: 'The order after completion' })
  @BackofficeApiErrorResponses('ORDER_NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async complete(
    @CurrentPrincipal() agent: BackofficePrincipal,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Body() body: CompletePayoutBody,
    @Req() request: GatewayRequest,
  ): Promise<unknown> {
    return this.act(request, PAYMENT_COMMAND_TYPES.agentCompletePayout, { agentId: agentIdOf(agent), merchantId, orderId, receiptId: body.receipt_id });
  }

  private async act(request: GatewayRequest, type: PaymentCommandType, data: AgentOrderActionData & Record<string, string>): Promise<unknown> {
    const reply = await this.commandBus.run<CommandReplyData>(PAYMENTS_COMMAND_ROUTE, type, data, {
      key: paymentOrderKey(data.merchantId, data.orderId),
      subject: `merchant:${data.merchantId}/order:${data.orderId}`,
      correlationId: request.requestId ?? 'unknown',
    });
    // The order as the agent may see it, as payments left it: the reply carries it. A reply from a
    // payments release before that has none, and the order is read back (after a decline it is no
    // longer the agent's, so not the agent's own read).
    return reply.agentOrder ?? agentViewOf(await this.payments.getOrderForBackoffice(data.merchantId, data.orderId));
  }
}

function agentIdOf(principal: BackofficePrincipal): string {
  if (!principal.agentId) throw new Error('invariant: an agent credential has an agent id');
  return principal.agentId;
}
