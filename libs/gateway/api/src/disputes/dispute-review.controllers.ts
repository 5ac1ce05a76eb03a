import { Body, Controller, Get, HttpCode, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import type { BackofficePrincipal } from '@mp/access-infrastructure';
import { OperatorDisputeQueueQueryDto, ReceiptDownloadLogQueryDto, ReviewDisputeRequestDto } from '@mp/contracts-disputes';
import { MerchantIdParam } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyReply } from 'fastify';
import { BackofficeGuard, CurrentPrincipal, Roles } from '../backoffice/backoffice.guard';
import { AsOfQuery } from '../backoffice/as-of.query';
import { DisputesClient } from './disputes.client';
import { DisputeIdParam } from './disputes.controller';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';

class ReviewBody extends ReviewDisputeRequestDto {
  @ApiProperty({ enum: ['ACCEPTED', 'REJECTED'] })
  declare decision: 'ACCEPTED' | 'REJECTED';

  @ApiPropertyOptional({ maxLength: 500 })
  declare reason?: string;
}

/** The disputes service decides who may review (the order's agent, any operator) and answers the dispute. */
function forwardReview(
  disputes: DisputesClient,
  reviewer: { role: 'agent' | 'operator'; id: string },
  merchantId: string,
  disputeId: string,
  body: ReviewBody,
) {
  return disputes.review(disputeId, {
    merchant_id: merchantId,
    decision: body.decision,
    reason: body.reason,
    reviewer_role: reviewer.role,
    reviewer_id: reviewer.id,
  });
}

/**
 * The reviewer's download of the dispute's receipt, as the disputes service sends it (it logs who,
 * when, which). Its handlers keep @Res(): the answer is a file with its own content type and
 * disposition, not JSON.
 */
async function sendReceipt(
  disputes: DisputesClient,
  reviewer: { role: 'agent' | 'operator'; id: string },
  merchantId: string,
  disputeId: string,
  reply: FastifyReply,
): Promise<void> {
  const file = await disputes.downloadReceipt(merchantId, disputeId, reviewer);
  await reply
    .status(200)
    .header('content-type', file.contentType)
    .header('content-disposition', file.disposition ?? 'attachment')
    .send(file.content);
}

/**
 * The order's agent reviews a dispute (docs/api/states.md "What moves an order"): accepting
 * settles the order for the disputed amount, rejecting restores its own state. Another
 * agent's dispute is not found, in the answer a missing one gets.
 */
@BackofficeApiDocs('Agent disputes')
@Controller('backoffice/v1/agent/disputes')
@UseGuards(BackofficeGuard)
@Roles('agent')
export class AgentDisputesController {
  constructor(private readonly disputes: DisputesClient) {}

  @HttpCode(200)
  @Post(':merchantId/:disputeId/review')
  @ApiOperation({ operationId: 'reviewDisputeAsAgent', summary: "Review a dispute on one of the agent's pay-ins" })
  @ApiResponse({ status: 200, description: 'The dispute after the review' })
  @BackofficeApiErrorResponses('DISPUTE_NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async review(
    @CurrentPrincipal() agent: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('disputeId', DisputeIdParam) disputeId: string,
    @Body() body: ReviewBody,
  ): Promise<unknown> {
    if (!agent.agentId) throw new DomainError('DISPUTE_NOT_FOUND', `No dispute ${disputeId}`);
    return await forwardReview(this.disputes, { role: 'agent', id: agent.agentId }, merchantId, disputeId, body);
  }

  /** The receipt of a dispute on one of this agent's orders; any other dispute is not found. Every download is logged. */
  @Get(':merchantId/:disputeId/receipt')
  @ApiOperation({ operationId: 'getDisputeReceiptAsAgent', summary: "Download a dispute's receipt file" })
  @ApiResponse({ status: 200, description: 'The receipt file' })
  @BackofficeApiErrorResponses('DISPUTE_NOT_FOUND')
  async receipt(
    @CurrentPrincipal() agent: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('disputeId', DisputeIdParam) disputeId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    if (!agent.agentId) throw new DomainError('DISPUTE_NOT_FOUND', `No dispute ${disputeId}`);
    await sendReceipt(this.disputes, { role: 'agent', id: agent.agentId }, merchantId, disputeId, reply);
  }
}

/** Operators review any dispute. */
@BackofficeApiDocs('Disputes')
@Controller('backoffice/v1/disputes')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class OperatorDisputesController {
  constructor(private readonly disputes: DisputesClient) {}

  /** The review queue: every merchant's disputes, newest first, by status and merchant if given, with the API's cursors. */
  @Get()
  @ApiOperation({ operationId: 'listDisputes', summary: 'Disputes across merchants, newest first (the review queue)' })
  @ApiResponse({ status: 200, description: '`{ data, has_more, next_cursor }`: each dispute object with its `merchant_id`' })
  @BackofficeApiErrorResponses()
  async queue(@Query() query: OperatorDisputeQueueQueryDto): Promise<unknown> {
    const { merchant_id, status, order_id, created_from, created_to, limit, cursor } = query;
    return await this.disputes.queue({ merchant_id, status, order_id, created_from, created_to, limit, cursor });
  }

  /** One dispute as its merchant sees it (endpoint 16), for the reviewer. */
  @Get(':merchantId/:disputeId')
  @ApiOperation({ operationId: 'getDispute', summary: 'One dispute' })
  @ApiResponse({ status: 200, description: 'The dispute object' })
  @BackofficeApiErrorResponses('DISPUTE_NOT_FOUND')
  async one(@Param('merchantId', MerchantIdParam) merchantId: string, @Param('disputeId', DisputeIdParam) disputeId: string): Promise<unknown> {
    return { merchant_id: merchantId, ...(await this.disputes.get(merchantId, disputeId)) };
  }

  /** The dispute as it stood at `at`, folded from its event stream (docs/operations/as-of-reads.md). */
  @Get(':merchantId/:disputeId/as-of')
  @ApiOperation({ operationId: 'getDisputeAsOf', summary: 'One dispute as it stood at an instant' })
  @ApiResponse({ status: 200, description: '`{ as_of, version, recorded_at, state, events }`: `state` is null before the dispute was opened' })
  @BackofficeApiErrorResponses('DISPUTE_NOT_FOUND')
  async asOf(
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('disputeId', DisputeIdParam) disputeId: string,
    @Query() query: AsOfQuery,
  ): Promise<unknown> {
    return await this.disputes.getAsOf(merchantId, disputeId, query.at);
  }

  @HttpCode(200)
  @Post(':merchantId/:disputeId/review')
  @ApiOperation({ operationId: 'reviewDispute', summary: 'Review a dispute' })
  @ApiResponse({ status: 200, description: 'The dispute after the review' })
  @BackofficeApiErrorResponses('DISPUTE_NOT_FOUND', 'ORDER_STATE_CONFLICT')
  async review(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('disputeId', DisputeIdParam) disputeId: string,
    @Body() body: ReviewBody,
  ): Promise<unknown> {
    return await forwardReview(this.disputes, { role: 'operator', id: operator.credentialId }, merchantId, disputeId, body);
  }

  /** Any dispute's receipt; the download is logged with the operator's credential. */
  @Get(':merchantId/:disputeId/receipt')
  @ApiOperation({ operationId: 'getDisputeReceipt', summary: "Download a dispute's receipt file" })
  @ApiResponse({ status: 200, description: 'The receipt file' })
  @BackofficeApiErrorResponses('DISPUTE_NOT_FOUND')
  async receipt(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Param('disputeId', DisputeIdParam) disputeId: string,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    await sendReceipt(this.disputes, { role: 'operator', id: operator.credentialId }, merchantId, disputeId, reply);
  }

  /** Who downloaded which dispute receipt, and when, newest first: `?merchant_id=&dispute_id=&reviewer_id=&limit=` (1 to 500, default 100). */
  @Get('receipt-downloads')
  @ApiOperation({ operationId: 'listDisputeReceiptDownloads', summary: 'Who downloaded which dispute receipt, newest first' })
  @ApiResponse({ status: 200, description: 'The download log' })
  async receiptDownloads(@Query() query: ReceiptDownloadLogQueryDto): Promise<unknown> {
    return await this.disputes.listReceiptDownloads({
      merchant_id: query.merchant_id,
      dispute_id: query.dispute_id,
      reviewer_id: query.reviewer_id,
      limit: query.limit,
    });
  }
}
