import { Controller, Get, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { WITHDRAWAL_COMMAND_TYPES, WITHDRAWAL_STATUSES, withdrawalKey, type WithdrawalCommandReplyData, type WithdrawalView } from '@mp/contracts-withdrawals';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyReply } from 'fastify';
import { CurrentMerchant, MerchantSignatureGuard, type AuthenticatedMerchant, type GatewayRequest } from '../auth/merchant-signature.guard';
import { parseJsonObjectBody, stringifyResponse } from '../http/json-body';
import { ORDER_ID_PATTERN } from '../payments/create-payment.request';
import { toListFilters } from '../payments/list-filters.request';
import { PaymentCommandBus, WITHDRAWALS_COMMAND_ROUTE } from '../payments/payment-command.bus';
import { toRequestWithdrawalData } from './create-withdrawal.request';
import { WithdrawalsReadClient } from './withdrawals-read.client';

/**
 * Spec endpoints 11 to 13. The create goes to the withdrawals service as a command (it freezes
 * amount + network fee before the withdrawal exists); reads go to its internal API. The list
 * item and the state response are the same object.
 */
@Controller('v2/merchant/withdrawals')
@UseGuards(MerchantSignatureGuard)
export class WithdrawalsController {
  constructor(
    private readonly commandBus: PaymentCommandBus,
    private readonly reads: WithdrawalsReadClient,
  ) {}

  /** Endpoint 11: 201 PENDING, the same answer for every retry with the same order_id and request. */
  @Post()
  async create(@CurrentMerchant() merchant: AuthenticatedMerchant, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = parseJsonObjectBody(request.body as Buffer | undefined);
    const data = toRequestWithdrawalData(merchant.merchantId, body, await this.reads.getAssets());
    const outcome = await this.commandBus.send<WithdrawalCommandReplyData>(WITHDRAWALS_COMMAND_ROUTE, WITHDRAWAL_COMMAND_TYPES.requestWithdrawal, data, {
      key: withdrawalKey(data.merchantId, data.orderId),
      subject: `merchant:${data.merchantId}/withdrawal:${data.orderId}`,
      correlationId: request.requestId ?? 'unknown',
    });
    if (outcome.outcome === 'rejected') throw DomainError.fromDescription(outcome.error);
    await send(reply, 201, outcome.withdrawal);
  }

  /** Endpoint 12: filters status, created_from, created_to, limit, cursor; newest first. */
  @Post('list')
  async list(@CurrentMerchant() merchant: AuthenticatedMerchant, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const filters = toListFilters(parseJsonObjectBody(request.body as Buffer | undefined), WITHDRAWAL_STATUSES);
    await send(reply, 200, await this.reads.listWithdrawals(merchant.merchantId, filters));
  }

  /** Endpoint 13: only the caller's withdrawals; another merchant's is 404 WITHDRAWAL_NOT_FOUND. */
  @Get(':orderId')
  async state(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('orderId') orderId: string, @Res() reply: FastifyReply): Promise<void> {
    if (!ORDER_ID_PATTERN.test(orderId)) throw new DomainError('WITHDRAWAL_NOT_FOUND', `No withdrawal ${orderId}`);
    const withdrawal: WithdrawalView = await this.reads.getWithdrawal(merchant.merchantId, orderId);
    await send(reply, 200, withdrawal);
  }
}

async function send(reply: FastifyReply, status: number, body: unknown): Promise<void> {
  await reply.status(status).type('application/json').send(stringifyResponse(body));
}
