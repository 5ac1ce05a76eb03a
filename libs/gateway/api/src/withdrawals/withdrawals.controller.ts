import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { linksById } from '../openapi/response-links';
import {
  WITHDRAWAL_COMMAND_TYPES,
  WITHDRAWAL_STATUSES,
  WithdrawalListFilterFieldsDto,
  type WithdrawalStatusView,
  type WithdrawalView,
} from '@mp/contracts-withdrawals';
import { PathIdPipe } from '@mp/shared-nest-http';
import { IsWholeNumberBetween, JsonNumberLiteral, ORDER_ID_PATTERN, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { CurrentMerchant, type AuthenticatedMerchant, type GatewayRequest } from '../auth/merchant-signature.guard';
import { ApiErrorResponses } from '../openapi/error.response';
import { MerchantApi } from '../openapi/merchant-api.decorator';
import { ApiListFiltersBody } from '../openapi/request-schemas';
import { ApiCreationPeriodAndCursor, toListFilters } from '../payments/list-filters.request';
import { ServiceCommandBus } from '../commands/service-command.bus';
import { ApiCreateWithdrawalBody, CreateWithdrawalBody, toRequestWithdrawalData } from './create-withdrawal.request';
import { runWithdrawalCommand } from './run-withdrawal-command';
import { WithdrawalsReadClient } from './withdrawals-read.client';
import { WithdrawalListResponse, WithdrawalResponse } from './withdrawal.response';

/** An id that cannot be an order id names no withdrawal: the same 404 as a missing one. */
const WithdrawalIdParam = new PathIdPipe(ORDER_ID_PATTERN, 'WITHDRAWAL_NOT_FOUND', (id) => `No withdrawal ${id}`);

/** Endpoint 12's body (a signed JSON body): the list filters, unknown names refused. */
@RequestMessages({ invalid: 'The list filters are not valid', unknownField: 'is not a filter; use status, created_from, created_to, limit, cursor' })
@ApiCreationPeriodAndCursor()
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
@MerchantApi('Withdrawals')
export class WithdrawalsController {
  constructor(
    private readonly commandBus: ServiceCommandBus,
    private readonly reads: WithdrawalsReadClient,
  ) {}

  /** Endpoint 11: 201 PENDING, the same answer for every retry with the same order_id and request. */
  @Post()
  @ApiCreateWithdrawalBody()
  @ApiOperation({
    operationId: 'createWithdrawal',
    summary: 'Withdraw funds to a crypto wallet',
    description:
      'Freezes amount plus network fee of the settlement balance; answers PENDING. Idempotent by order_id. The outcome is a callback to the default_callback_url of the merchant profile; without one it is kept (awaiting_url in the delivery log) and sent once it is set.',
  })
  @ApiResponse({
    status: 201,
    type: WithdrawalResponse,
    description: 'The withdrawal, PENDING (or as it is now, for a retry)',
    links: linksById('order_id', 'orderId', ['getWithdrawal']),
  })
  @ApiErrorResponses('INSUFFICIENT_FUNDS', 'INVALID_ADDRESS', 'DUPLICATE_ORDER')
  async create(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: CreateWithdrawalBody,
    @Req() request: GatewayRequest,
  ): Promise<WithdrawalView> {
    const data = toRequestWithdrawalData(merchant.merchantId, body);
    return runWithdrawalCommand(this.commandBus, WITHDRAWAL_COMMAND_TYPES.requestWithdrawal, data, request);
  }

  /** Endpoint 12: filters status, created_from, created_to, limit, cursor; newest first. */
  @Post('list')
  @HttpCode(200)
  @ApiListFiltersBody(WithdrawalListBody, 'COMPLETED')
  @ApiOperation({ operationId: 'listWithdrawals', summary: 'List withdrawals, newest first' })
  @ApiResponse({ status: 200, type: WithdrawalListResponse })
  @ApiErrorResponses()
  async list(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() filters: WithdrawalListBody) {
    return this.reads.listWithdrawals(merchant.merchantId, toListFilters(filters));
  }

  /** Endpoint 13: only the caller's withdrawals; another merchant's is 404 WITHDRAWAL_NOT_FOUND. */
  @Get(':orderId')
  @ApiOperation({ operationId: 'getWithdrawal', summary: 'Withdrawal state' })
  @ApiResponse({ status: 200, type: WithdrawalResponse })
  @ApiErrorResponses('WITHDRAWAL_NOT_FOUND')
  async state(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('orderId', WithdrawalIdParam) orderId: string): Promise<WithdrawalView> {
    return this.reads.getWithdrawal(merchant.merchantId, orderId);
  }
}
