import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req } from '@nestjs/common';
import { DisputeListQueryDto, InternalReviewDisputeDto, type DisputeList, type DisputeView } from '@mp/contracts-disputes';
import { AdvanceClockRequestDto } from '@mp/contracts-payments-api';
import type { DisputeReceiptRef } from '@mp/disputes-domain';
import { MerchantIdParam, PathIdPipe, RequestPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { DisputeCommandHandler } from '../commands/dispute-command.handler';
import { DISPUTES_CLOCK, DISPUTES_SETTINGS, OffsetClock, type Clock, type DisputesSettings } from '../disputes-settings';
import { disputeView, findDisputeView, listDisputes } from '../persistence/dispute.projection';
import { storeDisputeReceipt } from '../receipts/dispute-receipts.store';

const requestPipe = new RequestPipe();
/** A malformed dispute id is answered like an unknown one. */
const DisputeIdParam = new PathIdPipe(/^dsp_[0-9a-f]{24}$/, 'DISPUTE_NOT_FOUND', (id) => `No dispute ${id}`);

/**
 * The disputes service's internal API for the gateway: reads (endpoints 15, 16), back-office
 * reviews and receipt storage. Opens go through Kafka (`disputes.commands`), like payments.
 */
@Controller('internal')
export class InternalDisputesController {
  constructor(
    private readonly dataSource: DataSource,
    private readonly handler: DisputeCommandHandler,
    @Inject(DISPUTES_CLOCK) private readonly clock: Clock,
    @Inject(DISPUTES_SETTINGS) private readonly settings: DisputesSettings,
  ) {}

  @Get('merchants/:merchantId/disputes')
  list(@Param('merchantId', MerchantIdParam) merchantId: string, @Query(requestPipe) query: DisputeListQueryDto): Promise<DisputeList> {
    return listDisputes(this.dataSource.manager, {
      merchantId,
      status: query.status,
      createdFrom: query.created_from === undefined ? undefined : new Date(query.created_from),
      createdTo: query.created_to === undefined ? undefined : new Date(query.created_to),
      limit: query.limit === undefined ? 50 : Number(query.limit),
      cursor: query.cursor,
    });
  }

  @Get('merchants/:merchantId/disputes/:disputeId')
  get(@Param('merchantId', MerchantIdParam) merchantId: string, @Param('disputeId', DisputeIdParam) disputeId: string): Promise<DisputeView> {
    return findDisputeView(this.dataSource.manager, merchantId, disputeId);
  }

  /** The file is the raw body, its name in `x-file-name`; the type is read from its bytes. */
  @Post('merchants/:merchantId/dispute-receipts')
  storeReceipt(@Param('merchantId', MerchantIdParam) merchantId: string, @Req() request: FastifyRequest): Promise<DisputeReceiptRef> {
    const content = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    return storeDisputeReceipt(this.dataSource.manager, merchantId, fileNameOf(request.headers['x-file-name']), content);
  }

  @Post('disputes/:disputeId/review')
  @HttpCode(200)
  async review(@Param('disputeId', DisputeIdParam) disputeId: string, @Body(requestPipe) body: InternalReviewDisputeDto): Promise<DisputeView> {
    const dispute = await this.handler.review(disputeId, body.merchant_id, body.decision, { role: body.reviewer_role, id: body.reviewer_id }, body.reason ?? null, { id: randomUUID(), correlationId: randomUUID() });
    return disputeView(dispute);
  }

  /** Tests only (DISPUTES_TEST_CLOCK_ENABLED): move the service's clock forward. */
  @Post('test/clock')
  @HttpCode(200)
  advanceClock(@Body(requestPipe) body: AdvanceClockRequestDto): { now: string } {
    if (!this.settings.testClockEnabled || !(this.clock instanceof OffsetClock)) throw new DomainError('NOT_FOUND', 'No route');
    this.clock.advance(body.advance_seconds * 1_000);
    return { now: this.clock.now().toISOString() };
  }
}

/** The gateway sends the merchant's file name percent-encoded (headers are ASCII). */
function fileNameOf(header: string | string[] | undefined): string {
  try {
    return decodeURIComponent(String(header ?? 'receipt'));
  } catch {
    return 'receipt';
  }
}
