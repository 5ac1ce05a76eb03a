import { pageFilterOf } from '@mp/shared-data-access-postgres';
import { randomUUID } from 'node:crypto';
import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, Req, Res } from '@nestjs/common';
import {
  DisputeListQueryDto,
  OperatorDisputeQueueQueryDto,
  InternalReviewDisputeDto,
  ReceiptDownloaderQueryDto,
  ReceiptDownloadLogQueryDto,
  type DisputeList,
  type OperatorDisputeList,
  type DisputeReceiptDownloadView,
  type DisputeView,
} from '@mp/contracts-disputes';
import { AdvanceClockRequestDto } from '@mp/contracts-payments';
import { disputeDecider, toDisputeStreamId, type DisputeReceiptRef } from '@mp/disputes-domain';
import { aggregateStreamAsOf, stateAsOfView, type StateAsOfView } from '@mp/shared-command-handling';
import { AsOfQueryDto, MerchantIdParam, PathIdPipe, RequestPipe } from '@mp/shared-nest-http';
import { requireActor, ServiceCaller, type VerifiedCaller } from '@mp/shared-service-auth';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DataSource } from 'typeorm';
import { DisputeReviews } from '../commands/review-dispute';
import { CLOCK, DISPUTES_SETTINGS, OffsetClock, type Clock, type DisputesSettings } from '../disputes-settings';
import { disputeEvents } from '../commands/dispute.stream';
import { disputeView, findDisputeOrder, findDisputeView, listDisputes, listDisputesAcrossMerchants } from '../persistence/dispute.projection';
import { downloadDisputeReceipt, listReceiptDownloads, storeDisputeReceipt } from '../receipts/dispute-receipts.store';

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
    private readonly reviews: DisputeReviews,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(DISPUTES_SETTINGS) private readonly settings: DisputesSettings,
  ) {}

  @Get('merchants/:merchantId/disputes')
  list(@Param('merchantId', MerchantIdParam) merchantId: string, @Query(requestPipe) query: DisputeListQueryDto): Promise<DisputeList> {
    return listDisputes(this.dataSource.manager, { merchantId, status: query.status, orderId: query.order_id, ...pageFilterOf(query) });
  }

  /** The operators' queue (the gateway's `GET /backoffice/v1/disputes`): every merchant's disputes, newest first. */
  @Get('disputes')
  queue(@Query(requestPipe) query: OperatorDisputeQueueQueryDto): Promise<OperatorDisputeList> {
    return listDisputesAcrossMerchants(this.dataSource.manager, {
      merchantId: query.merchant_id,
      status: query.status,
      orderId: query.order_id,
      ...pageFilterOf(query),
    });
  }

  @Get('merchants/:merchantId/disputes/:disputeId')
  get(@Param('merchantId', MerchantIdParam) merchantId: string, @Param('disputeId', DisputeIdParam) disputeId: string): Promise<DisputeView> {
    return findDisputeView(this.dataSource.manager, merchantId, disputeId);
  }

  /**
   * Operators: the dispute as it stood at `at`, folded from its order's dispute stream
   * (docs/operations/as-of-reads.md). A review shows from the instant it was decided, before
   * payments applied it and merchants could see it.
   */
  @Get('merchants/:merchantId/disputes/:disputeId/as-of')
  async getAsOf(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('disputeId', DisputeIdParam) disputeId: string,
    @Query(requestPipe) query: AsOfQueryDto,
  ): Promise<StateAsOfView<DisputeView>> {
    const order = await findDisputeOrder(this.dataSource.manager, disputeId);
    if (!order || order.merchantId !== merchantId) throw new DomainError('DISPUTE_NOT_FOUND', `No dispute ${disputeId}`);
    const at = new Date(query.at);
    const read = await aggregateStreamAsOf(this.dataSource.manager, disputeDecider, disputeEvents, toDisputeStreamId(merchantId, order.orderId), at);
    return stateAsOfView(at, read, (dispute) => (dispute.status === 'NotOpened' ? null : disputeView(dispute)));
  }

  /** The file is the raw body, its name in `x-file-name`; the type is read from its bytes. */
  @Post('merchants/:merchantId/dispute-receipts')
  storeReceipt(@Param('merchantId', MerchantIdParam) merchantId: string, @Req() request: FastifyRequest): Promise<DisputeReceiptRef> {
    const content = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    return storeDisputeReceipt(this.dataSource.manager, merchantId, fileNameOf(request.headers['x-file-name']), content);
  }

  /** A reviewer's download of the dispute's current receipt; recorded with who and when before a byte is sent. */
  @Get('merchants/:merchantId/disputes/:disputeId/receipt')
  async downloadReceipt(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('disputeId', DisputeIdParam) disputeId: string,
    @Query(requestPipe) query: ReceiptDownloaderQueryDto,
    @Res() reply: FastifyReply,
    @ServiceCaller() caller?: VerifiedCaller,
  ): Promise<void> {
    // Recorded under the reviewer the gateway's service token names; a query naming another is refused.
    const reviewer = requireActor(caller, ['operator', 'agent'], { type: query.reviewer_role, id: query.reviewer_id });
    const file = await downloadDisputeReceipt(this.dataSource.manager, merchantId, disputeId, { role: reviewer.type, id: reviewer.id });
    // The name was made safe when stored (safeReceiptFileName): no quotes, no control characters.
    await reply.type(file.contentType).header('content-disposition', `attachment; filename="${file.fileName}"`).send(file.content);
  }

  /** Who downloaded which receipt, newest first: `?merchant_id=&dispute_id=&reviewer_id=&limit=` (1 to 500, default 100). */
  @Get('dispute-receipt-downloads')
  async receiptDownloads(@Query(requestPipe) query: ReceiptDownloadLogQueryDto): Promise<{ data: DisputeReceiptDownloadView[] }> {
    const data = await listReceiptDownloads(this.dataSource.manager, {
      merchantId: query.merchant_id,
      disputeId: query.dispute_id,
      reviewerId: query.reviewer_id,
      limit: query.limit === undefined ? 100 : Number(query.limit),
    });
    return { data };
  }

  @Post('disputes/:disputeId/review')
  @HttpCode(200)
  async review(
    @Param('disputeId', DisputeIdParam) disputeId: string,
    @Body(requestPipe) body: InternalReviewDisputeDto,
    @ServiceCaller() caller?: VerifiedCaller,
  ): Promise<DisputeView> {
    // The reviewer is the one the gateway's service token names; reviewer_role/reviewer_id in the body must agree.
    const reviewer = requireActor(caller, ['operator', 'agent'], { type: body.reviewer_role, id: body.reviewer_id });
    const dispute = await this.reviews.review(disputeId, body.merchant_id, body.decision, { role: reviewer.type, id: reviewer.id }, body.reason ?? null, {
      id: randomUUID(),
      correlationId: randomUUID(),
    });
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
