import { Controller, Get, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import type { BackofficePrincipal } from '@mp/access-infrastructure';
import { PAYMENT_COMMAND_TYPES, paymentOrderKey, type AgentOrderActionData, type CommandReplyData, type PaymentCommandType } from '@mp/contracts-payments';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyReply } from 'fastify';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { JsonNumberLiteral, parseJsonObjectBody } from '../http/json-body';
import { toListFilters } from '../payments/list-filters.request';
import { PaymentCommandBus } from '../payments/payment-command.bus';
import { PaymentsReadClient } from '../payments/payments-read.client';
import { BackofficeGuard, CurrentPrincipal, Roles } from './backoffice.guard';
import { json } from './operator.controller';

/**
 * What payment agents do: see their orders and the payouts they could take, take one, confirm
 * or decline a pay-in, complete a payout with a receipt or decline it. An agent never sees or
 * touches another agent's order: it is not found, in the very answer a missing order gets.
 */
@Controller('backoffice/v1/agent')
@UseGuards(BackofficeGuard)
@Roles('agent')
export class AgentController {
  constructor(
    private readonly commandBus: PaymentCommandBus,
    private readonly payments: PaymentsReadClient,
  ) {}

  /** `?scope=assigned` (default) or `available`, plus the list filters as query parameters. */
  @Get('orders')
  async list(@CurrentPrincipal() agent: BackofficePrincipal, @Query() query: Record<string, string>, @Res() reply: FastifyReply): Promise<void> {
    const { scope = 'assigned', ...filters } = query;
    if (scope !== 'assigned' && scope !== 'available') throw new DomainError('VALIDATION_ERROR', 'scope is assigned or available', [{ field: 'scope', issue: 'must be assigned or available' }]);
    const listFilters = toListFilters(Object.fromEntries(Object.entries(filters).map(([name, value]) => [name, name === 'limit' ? new JsonNumberLiteral(value) : value])));
    await json(reply, 200, await this.payments.listAgentOrders(agentIdOf(agent), scope, listFilters));
  }

  @Get('orders/:merchantId/:orderId')
  async get(@CurrentPrincipal() agent: BackofficePrincipal, @Param('merchantId') merchantId: string, @Param('orderId') orderId: string, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 200, await this.payments.getAgentOrder(agentIdOf(agent), merchantId, orderId));
  }

  @Post('orders/:merchantId/:orderId/take')
  async take(@CurrentPrincipal() agent: BackofficePrincipal, @Param('merchantId') merchantId: string, @Param('orderId') orderId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.act(reply, request, PAYMENT_COMMAND_TYPES.agentTakeOrder, { agentId: agentIdOf(agent), merchantId, orderId });
  }

  @Post('orders/:merchantId/:orderId/confirm')
  async confirm(@CurrentPrincipal() agent: BackofficePrincipal, @Param('merchantId') merchantId: string, @Param('orderId') orderId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.act(reply, request, PAYMENT_COMMAND_TYPES.agentConfirmPayIn, { agentId: agentIdOf(agent), merchantId, orderId });
  }

  @Post('orders/:merchantId/:orderId/decline')
  async decline(@CurrentPrincipal() agent: BackofficePrincipal, @Param('merchantId') merchantId: string, @Param('orderId') orderId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = request.body && (request.body as Buffer).length > 0 ? parseJsonObjectBody(request.body as Buffer) : {};
    const reason = typeof body['reason'] === 'string' && body['reason'].trim() ? body['reason'].trim().slice(0, 500) : 'declined by agent';
    await this.act(reply, request, PAYMENT_COMMAND_TYPES.agentDeclineOrder, { agentId: agentIdOf(agent), merchantId, orderId, reason });
  }

  /**
   * The full recipient account number of a payout this agent has taken, the only place it is
   * shown; lists and order views show `•••• 1234`. Every reveal is recorded for operators.
   */
  @Post('orders/:merchantId/:orderId/account-number')
  async revealAccountNumber(@CurrentPrincipal() agent: BackofficePrincipal, @Param('merchantId') merchantId: string, @Param('orderId') orderId: string, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 200, await this.payments.revealAccountNumber(agentIdOf(agent), merchantId, orderId));
  }

  /** The raw file is the body (PDF, PNG or JPEG, at most 5 MB, checked by its bytes); name in x-file-name. */
  @Post('orders/:merchantId/:orderId/receipts')
  async uploadReceipt(@CurrentPrincipal() agent: BackofficePrincipal, @Param('merchantId') merchantId: string, @Param('orderId') orderId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const order = await this.payments.getAgentOrder(agentIdOf(agent), merchantId, orderId);
    if (order.direction !== 'outgoing') throw new DomainError('ORDER_NOT_FOUND', 'Receipts belong to payouts; this order is a pay-in');
    const content = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const fileName = typeof request.headers['x-file-name'] === 'string' ? request.headers['x-file-name'] : 'receipt';
    await json(reply, 201, await this.payments.uploadReceipt(agentIdOf(agent), merchantId, orderId, fileName, content));
  }

  @Post('orders/:merchantId/:orderId/complete')
  async complete(@CurrentPrincipal() agent: BackofficePrincipal, @Param('merchantId') merchantId: string, @Param('orderId') orderId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = parseJsonObjectBody(request.body as Buffer | undefined);
    const receiptId = body['receipt_id'];
    if (typeof receiptId !== 'string' || !/^rcp_[0-9a-f]{24}$/.test(receiptId)) throw new DomainError('VALIDATION_ERROR', 'Upload the receipt first and pass its receipt_id', [{ field: 'receipt_id', issue: 'is required' }]);
    await this.act(reply, request, PAYMENT_COMMAND_TYPES.agentCompletePayout, { agentId: agentIdOf(agent), merchantId, orderId, receiptId });
  }

  private async act(reply: FastifyReply, request: GatewayRequest, type: PaymentCommandType, data: AgentOrderActionData & Record<string, string>): Promise<void> {
    const outcome: CommandReplyData = await this.commandBus.execute(type, data, {
      key: paymentOrderKey(data.merchantId, data.orderId),
      subject: `merchant:${data.merchantId}/order:${data.orderId}`,
      correlationId: request.requestId ?? 'unknown',
    });
    if (outcome.outcome === 'rejected') throw DomainError.fromDescription(outcome.error);
    await json(reply, 200, await this.payments.getOrderForBackoffice(data.merchantId, data.orderId));
  }
}

function agentIdOf(principal: BackofficePrincipal): string {
  if (!principal.agentId) throw new Error('invariant: an agent credential has an agent id');
  return principal.agentId;
}
