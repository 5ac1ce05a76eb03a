import { Body, Controller, Get, HttpCode, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { MerchantCredentialStore, type BackofficePrincipal } from '@mp/access-infrastructure';
import { StuckWithdrawalsQueryDto, WITHDRAWAL_COMMAND_TYPES } from '@mp/contracts-withdrawals';
import { MerchantIdParam, OrderIdParam, OrderMerchantIdParam } from '@mp/shared-nest-http';
import type { FastifyReply } from 'fastify';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { LedgerReadClient } from '../merchant/ledger-read.client';
import { ServiceCommandBus } from '../commands/service-command.bus';
import { runWithdrawalCommand, sendWithdrawalCommand } from '../withdrawals/run-withdrawal-command';
import { WithdrawalsReadClient } from '../withdrawals/withdrawals-read.client';
import { actingOperatorId } from './acting-operator';
import { AsOfQuery } from './as-of.query';
import { BackofficeGuard, CurrentPrincipal, Roles } from './backoffice.guard';
import { ConversionBody, toConversionRequest } from './conversion.request';
import { ResolveWithdrawalBody, toResolveWithdrawalData } from './resolve-withdrawal.request';
import { requireMerchant } from '../merchant/require-merchant';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';

/** Operators' side of crypto: conversions into assets, stuck withdrawals and their resolution. */
@BackofficeApiDocs('Withdrawals')
@Controller('backoffice/v1')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class WithdrawalsOperatorController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    private readonly ledger: LedgerReadClient,
    private readonly withdrawals: WithdrawalsReadClient,
    private readonly commandBus: ServiceCommandBus,
  ) {}

  /**
   * 201 booked now, 200 the same conversion_id again (the original comes back), 202 above the
   * approval threshold (a request a second operator approves at /approvals); audited in the ledger.
   */
  @Post('merchants/:merchantId/conversions')
  @ApiOperation({ operationId: 'convertCurrency', summary: "Convert between a merchant's currencies through the FX accounts" })
  @ApiResponse({ status: 201, description: 'Booked' })
  @ApiResponse({ status: 202, description: 'Above the approval threshold: an approval request a second operator decides' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'INSUFFICIENT_FUNDS')
  async convert(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Body() body: ConversionBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    await requireMerchant(this.merchants, merchantId);
    const conversion = toConversionRequest(body, actingOperatorId(operator));
    const result = await this.ledger.convert(merchantId, conversion);
    // 201 booked, or 202 when a second operator must approve it: the status is the ledger's.
    void reply.status(result.status);
    return result.body;
  }

  /** Withdrawals PENDING for longer than `older_than_seconds` (default 900), oldest first. */
  @Get('withdrawals/stuck')
  @ApiOperation({ operationId: 'listStuckWithdrawals', summary: 'Withdrawals without an outcome for longer than a while' })
  @ApiResponse({ status: 200, description: 'The stuck withdrawals' })
  async stuck(@Query() query: StuckWithdrawalsQueryDto): Promise<unknown> {
    return await this.withdrawals.listStuck(query.older_than_seconds === undefined ? 900 : Number(query.older_than_seconds));
  }

  /** The withdrawal as operators see it: send progress, attempts and any reconciliation's evidence. */
  @Get('withdrawals/:merchantId/:orderId')
  @ApiOperation({ operationId: 'getWithdrawalForOperator', summary: 'Get any withdrawal' })
  @ApiResponse({ status: 200, description: 'The withdrawal' })
  @BackofficeApiErrorResponses('WITHDRAWAL_NOT_FOUND')
  async get(@Param('merchantId', OrderMerchantIdParam) merchantId: string, @Param('orderId', OrderIdParam) orderId: string): Promise<unknown> {
    return await this.withdrawals.getForOperator(merchantId, orderId);
  }

  /** The withdrawal as it stood at `at`, folded from its event stream (docs/operations/as-of-reads.md). */
  @Get('withdrawals/:merchantId/:orderId/as-of')
  @ApiOperation({ operationId: 'getWithdrawalAsOf', summary: 'Get any withdrawal as it stood at an instant' })
  @ApiResponse({ status: 200, description: '`{ as_of, version, recorded_at, state, events }`: `state` is null before the withdrawal existed' })
  @BackofficeApiErrorResponses('WITHDRAWAL_NOT_FOUND')
  async getAsOf(
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Query() query: AsOfQuery,
  ): Promise<unknown> {
    return await this.withdrawals.getAsOf(merchantId, orderId, query.at);
  }

  /**
   * Resolves a stuck withdrawal through the same decider as the sender: only a PENDING one, once.
   * `failed` only while it is queued (nothing can have been sent); a "sending" one is reconciled.
   */
  @HttpCode(200)
  @Post('withdrawals/:merchantId/:orderId/resolve')
  @ApiOperation({ operationId: 'resolveWithdrawal', summary: 'Resolve a stuck withdrawal by hand' })
  @ApiResponse({ status: 200, description: 'The withdrawal after the resolution' })
  @BackofficeApiErrorResponses('WITHDRAWAL_NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async resolve(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Body() body: ResolveWithdrawalBody,
    @Req() request: GatewayRequest,
  ): Promise<unknown> {
    const data = toResolveWithdrawalData(merchantId, orderId, operator.credentialId, body);
    return await runWithdrawalCommand(this.commandBus, WITHDRAWAL_COMMAND_TYPES.resolveWithdrawal, data, request);
  }

  /**
   * Asks the network about a withdrawal's idempotency key and lets its answer decide: COMPLETED
   * with the hash, or FAILED (the money returns) when the network failed or dropped the transfer.
   * Answers the withdrawal with the evidence (`reconciliation`); 409 while the network has not decided.
   * Takes no body, like the agents' actions: the network's answer is the only input.
   */
  @HttpCode(200)
  @Post('withdrawals/:merchantId/:orderId/reconcile')
  @ApiOperation({ operationId: 'reconcileWithdrawal', summary: 'Ask the network about a withdrawal now' })
  @ApiResponse({ status: 200, description: 'The withdrawal and what the network said' })
  @BackofficeApiErrorResponses('WITHDRAWAL_NOT_FOUND')
  async reconcile(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Req() request: GatewayRequest,
  ): Promise<unknown> {
    const data = { merchantId, orderId, operatorId: operator.credentialId };
    const { withdrawal, reconciliation } = await sendWithdrawalCommand(this.commandBus, WITHDRAWAL_COMMAND_TYPES.reconcileWithdrawal, data, request);
    return { ...withdrawal, reconciliation: reconciliation ?? null };
  }
}
