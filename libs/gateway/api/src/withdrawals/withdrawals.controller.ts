import { Body, Controller, Get, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import { WITHDRAWAL_COMMAND_TYPES, WITHDRAWAL_STATUSES, WithdrawalListFilterFieldsDto, type WithdrawalStatusView, type WithdrawalView } from '@mp/contracts-withdrawals';
import { PathIdPipe } from '@mp/shared-nest-http';
import { IsWholeNumberBetween, JsonNumberLiteral, ORDER_ID_PATTERN, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { CurrentMerchant, MerchantSignatureGuard, type AuthenticatedMerchant, type GatewayRequest } from '../auth/merchant-signature.guard';
import { stringifyResponse } from '../http/json-body';
import { toListFilters } from '../payments/list-filters.request';
import { PaymentCommandBus } from '../payments/payment-command.bus';
import { OutcomeCallbackDestination } from '../merchant/outcome-destination';
import { CreateWithdrawalBody, toRequestWithdrawalData } from './create-withdrawal.request';
import { runWithdrawalCommand } from './run-withdrawal-command';
import { WithdrawalsReadClient } from './withdrawals-read.client';

/** An id that cannot be an order id names no withdrawal: the same 404 as a missing one. */
const WithdrawalIdParam = new PathIdPipe(ORDER_ID_PATTERN, 'WITHDRAWAL_NOT_FOUND', (id) => `No withdrawal ${id}`);

/** Endpoint 12's body (a signed JSON body): the list filters, unknown names refused. */
@RequestMessages({ invalid: 'The list filters are not valid', unknownField: 'is not a filter; use status, created_from, created_to, limit, cursor' })
class WithdrawalListBody extends WithdrawalListFilterFieldsDto {
  @ApiPropertyOptional({ enum: WITHDRAWAL_STATUSES })
  override status?: WithdrawalStatusView;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @IsWholeNumberBetween(1, 100, 'json')
  limit?: JsonNumberLiteral;
}

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
    private readonly outcomeDestination: OutcomeCallbackDestination,
  ) {}

  /** Endpoint 11: 201 PENDING, the same answer for every retry with the same order_id and request. */
  @Post()
  async create(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: CreateWithdrawalBody, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    await this.outcomeDestination.require(merchant.merchantId, 'withdrawal');
    const data = toRequestWithdrawalData(merchant.merchantId, body);
    await send(reply, 201, await runWithdrawalCommand(this.commandBus, WITHDRAWAL_COMMAND_TYPES.requestWithdrawal, data, request));
  }

  /** Endpoint 12: filters status, created_from, created_to, limit, cursor; newest first. */
  @Post('list')
  async list(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() filters: WithdrawalListBody, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, 200, await this.reads.listWithdrawals(merchant.merchantId, toListFilters(filters)));
  }

  /** Endpoint 13: only the caller's withdrawals; another merchant's is 404 WITHDRAWAL_NOT_FOUND. */
  @Get(':orderId')
  async state(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('orderId', WithdrawalIdParam) orderId: string, @Res() reply: FastifyReply): Promise<void> {
    const withdrawal: WithdrawalView = await this.reads.getWithdrawal(merchant.merchantId, orderId);
    await send(reply, 200, withdrawal);
  }
}

async function send(reply: FastifyReply, status: number, body: unknown): Promise<void> {
  await reply.status(status).type('application/json').send(stringifyResponse(body));
}
