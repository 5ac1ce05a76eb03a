import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Query, Req, Res } from '@nestjs/common';
import { DEFAULT_PAGE_LIMIT } from '@mp/shared-data-access-postgres';
import {
  AdvanceClockRequestDto,
  AgentListQueryDto,
  PutAgentRequestDto,
  PutMethodsRequestDto,
  type AdvanceClockResult,
  type AgentProfileList,
  type AgentProfileView,
  type MethodCatalogView,
} from '@mp/contracts-payments';
import { AgentIdParam, MerchantIdParam, OrderIdParam, OrderMerchantIdParam, ReceiptIdParam, RequestPipe } from '@mp/shared-nest-http';
import { requireActor, ServiceCaller, type VerifiedCaller } from '@mp/shared-service-auth';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { OffsetClock, CLOCK, PAYMENTS_SETTINGS, type Clock, type PaymentsSettings } from '../payments-settings';
import { ExpirySweeper } from '../commands/expiry-sweeper';
import { findReceipt, readReceiptContent, storeReceipt, type PayoutReceiptRow } from '../receipts/payout-receipts.store';
import { fromStoredEntry, loadMethodCatalog, saveMethodCatalog, toStoredEntry } from './method-catalog.store';
import { listAgents, saveAgent } from './payment-agents.store';

const bodyPipe = new RequestPipe();

/** Operator configuration and agent uploads, behind the gateway's back-office API. */
@Controller('internal')
export class InternalReferenceDataController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sweeper: ExpirySweeper,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
  ) {}

  @Get('merchants/:merchantId/methods')
  async getMethods(@Param('merchantId', MerchantIdParam) merchantId: string): Promise<MethodCatalogView> {
    return { data: (await loadMethodCatalog(this.dataSource.manager, merchantId)).map(toStoredEntry) };
  }

  @Put('merchants/:merchantId/methods')
  async putMethods(@Param('merchantId', MerchantIdParam) merchantId: string, @Body(bodyPipe) body: PutMethodsRequestDto): Promise<MethodCatalogView> {
    const entries = body.entries.map(fromStoredEntry);
    await saveMethodCatalog(this.dataSource.manager, merchantId, entries);
    return { data: entries.map(toStoredEntry) };
  }

  @Get('agents')
  listAgents(@Query(bodyPipe) query: AgentListQueryDto): Promise<AgentProfileList> {
    return listAgents(this.dataSource.manager, {
      active: query.active === undefined ? undefined : query.active === 'true',
      limit: query.limit === undefined ? DEFAULT_PAGE_LIMIT : Number(query.limit),
      cursor: query.cursor,
    });
  }

  @Put('agents/:agentId')
  async putAgent(@Param('agentId', AgentIdParam) agentId: string, @Body(bodyPipe) body: PutAgentRequestDto): Promise<AgentProfileView> {
    const serves = body.serves.map(({ method, country, currency }) => ({ method, country, currency }));
    const agent = { agent_id: agentId, display_name: body.display_name, payment_details: body.payment_details, serves, active: body.active !== false };
    await saveAgent(this.dataSource.manager, agent);
    return agent;
  }

  /** The raw file is the body; the type is read from its bytes, never from the header. */
  @Post('agents/:agentId/orders/:merchantId/:orderId/receipts')
  async uploadReceipt(
    @Param('agentId', AgentIdParam) agentId: string,
    @Param('merchantId', OrderMerchantIdParam) merchantId: string,
    @Param('orderId', OrderIdParam) orderId: string,
    @Req() request: FastifyRequest,
    @ServiceCaller() caller?: VerifiedCaller,
  ): Promise<PayoutReceiptRow> {
    // An agent uploads as itself: the agent the gateway's service token names.
    requireActor(caller, ['agent'], { id: agentId });
    const content = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const fileName = String(request.headers['x-file-name'] ?? 'receipt');
    return storeReceipt(this.dataSource.manager, { merchantId, orderId, agentId, fileName, content });
  }

  @Get('receipts/:receiptId/content')
  async downloadReceipt(@Param('receiptId', ReceiptIdParam) receiptId: string, @Res() reply: FastifyReply): Promise<void> {
    const receipt = await findReceipt(this.dataSource.manager, receiptId);
    const content = receipt ? await readReceiptContent(this.dataSource.manager, receiptId) : null;
    if (!receipt || !content) throw new DomainError('NOT_FOUND', 'No such receipt');
    await reply.type(receipt.content_type).header('content-disposition', `attachment; filename="${receipt.file_name}"`).send(content);
  }

  /** Tests only (TEST_CLOCK_ENABLED): move the service's clock forward and sweep expiries now. */
  @Post('test/clock')
  @HttpCode(200)
  async advanceClock(@Body(bodyPipe) body: AdvanceClockRequestDto): Promise<AdvanceClockResult> {
    if (!this.settings.testClockEnabled || !(this.clock instanceof OffsetClock)) throw new DomainError('NOT_FOUND', 'No route');
    this.clock.advance(body.advance_seconds * 1_000);
    return { now: this.clock.now().toISOString(), expired: await this.sweeper.sweep() };
  }
}
