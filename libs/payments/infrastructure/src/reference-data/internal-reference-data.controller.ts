import { Body, Controller, Get, HttpCode, Inject, Param, Post, Put, Req, Res } from '@nestjs/common';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { OffsetClock, CLOCK, PAYMENTS_SETTINGS, type Clock, type PaymentsSettings } from '../payments-settings';
import { ExpirySweeper } from '../commands/expiry-sweeper';
import { findReceipt, readReceiptContent, storeReceipt, type PayoutReceiptRow } from '../receipts/payout-receipts.store';
import { fromStoredEntry, loadMethodCatalog, saveMethodCatalog, toStoredEntry, type StoredMethodEntry } from './method-catalog.store';
import { saveAgent, type AgentServiceArea } from './payment-agents.store';

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
  async getMethods(@Param('merchantId') merchantId: string): Promise<{ data: StoredMethodEntry[] }> {
    return { data: (await loadMethodCatalog(this.dataSource.manager, merchantId)).map(toStoredEntry) };
  }

  @Put('merchants/:merchantId/methods')
  async putMethods(@Param('merchantId') merchantId: string, @Body() body: { entries?: StoredMethodEntry[] }): Promise<{ data: StoredMethodEntry[] }> {
    const entries = validateEntries(body?.entries);
    await saveMethodCatalog(this.dataSource.manager, merchantId, entries.map(fromStoredEntry));
    return { data: entries };
  }

  @Put('agents/:agentId')
  async putAgent(@Param('agentId') agentId: string, @Body() body: { display_name?: string; payment_details?: string; serves?: AgentServiceArea[]; active?: boolean }) {
    const details: ErrorDetail[] = [];
    if (typeof body?.display_name !== 'string' || body.display_name.trim() === '') details.push({ field: 'display_name', issue: 'is required' });
    if (typeof body?.payment_details !== 'string' || body.payment_details.trim() === '') details.push({ field: 'payment_details', issue: 'is required' });
    const serves = Array.isArray(body?.serves) ? body.serves : [];
    if (serves.length === 0 || !serves.every((area) => [area?.method, area?.country, area?.currency].every((value) => typeof value === 'string' && value !== ''))) {
      details.push({ field: 'serves', issue: 'must list {method, country, currency} entries' });
    }
    if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The agent is not valid', details);
    const agent = { agent_id: agentId, display_name: body.display_name as string, payment_details: body.payment_details as string, serves: serves.map(({ method, country, currency }) => ({ method, country, currency })), active: body.active !== false };
    await saveAgent(this.dataSource.manager, agent);
    return agent;
  }

  /** The raw file is the body; the type is read from its bytes, never from the header. */
  @Post('agents/:agentId/orders/:merchantId/:orderId/receipts')
  async uploadReceipt(
    @Param('agentId') agentId: string,
    @Param('merchantId') merchantId: string,
    @Param('orderId') orderId: string,
    @Req() request: FastifyRequest,
  ): Promise<PayoutReceiptRow> {
    const content = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    const fileName = String(request.headers['x-file-name'] ?? 'receipt');
    return storeReceipt(this.dataSource.manager, { merchantId, orderId, agentId, fileName, content });
  }

  @Get('receipts/:receiptId/content')
  async downloadReceipt(@Param('receiptId') receiptId: string, @Res() reply: FastifyReply): Promise<void> {
    const receipt = await findReceipt(this.dataSource.manager, receiptId);
    const content = receipt ? await readReceiptContent(this.dataSource.manager, receiptId) : null;
    if (!receipt || !content) throw new DomainError('NOT_FOUND', 'No such receipt');
    await reply.type(receipt.content_type).header('content-disposition', `attachment; filename="${receipt.file_name}"`).send(content);
  }

  /** Tests only (TEST_CLOCK_ENABLED): move the service's clock forward and sweep expiries now. */
  @Post('test/clock')
  @HttpCode(200)
  async advanceClock(@Body() body: { advance_seconds?: number }): Promise<{ now: string; expired: number }> {
    if (!this.settings.testClockEnabled || !(this.clock instanceof OffsetClock)) throw new DomainError('NOT_FOUND', 'No route');
    const seconds = Number(body?.advance_seconds);
    if (!Number.isInteger(seconds) || seconds < 0) throw new DomainError('VALIDATION_ERROR', 'advance_seconds must be a whole number ≥ 0', [{ field: 'advance_seconds', issue: 'invalid' }]);
    this.clock.advance(seconds * 1_000);
    return { now: this.clock.now().toISOString(), expired: await this.sweeper.sweep() };
  }
}

function validateEntries(entries: StoredMethodEntry[] | undefined): StoredMethodEntry[] {
  if (!Array.isArray(entries) || entries.length === 0) throw new DomainError('VALIDATION_ERROR', 'entries must be a non-empty list', [{ field: 'entries', issue: 'is required' }]);
  const details: ErrorDetail[] = [];
  entries.forEach((entry, index) => {
    const field = (name: string) => `entries[${index}].${name}`;
    if (typeof entry?.method !== 'string' || !/^[a-z0-9_]{1,40}$/.test(entry.method)) details.push({ field: field('method'), issue: 'must be lower_snake_case' });
    if (entry?.direction !== 'incoming' && entry?.direction !== 'outgoing') details.push({ field: field('direction'), issue: 'must be incoming or outgoing' });
    if (typeof entry?.country !== 'string' || !/^[A-Z]{2}$/.test(entry.country)) details.push({ field: field('country'), issue: 'must be a two-letter code' });
    if (typeof entry?.currency !== 'string' || !/^[A-Z0-9]{3,10}$/.test(entry.currency)) details.push({ field: field('currency'), issue: 'must be a currency code' });
    if (!Number.isInteger(entry?.fee_rate_basis_points) || entry.fee_rate_basis_points < 0 || entry.fee_rate_basis_points > 10_000) details.push({ field: field('fee_rate_basis_points'), issue: 'must be 0 to 10000' });
    for (const name of ['fee_fixed_minor', 'min_amount_minor', 'max_amount_minor'] as const) {
      if (typeof entry?.[name] !== 'string' || !/^\d{1,30}$/.test(entry[name])) details.push({ field: field(name), issue: 'must be a whole number of minor units as a string' });
    }
    if (!Number.isInteger(entry?.expiry_minutes) || entry.expiry_minutes < 1) details.push({ field: field('expiry_minutes'), issue: 'must be a whole number ≥ 1' });
    if (details.length === 0 && BigInt(entry.min_amount_minor) > BigInt(entry.max_amount_minor)) details.push({ field: field('min_amount_minor'), issue: 'must not exceed max_amount_minor' });
  });
  if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The method configuration is not valid', details);
  return entries;
}
