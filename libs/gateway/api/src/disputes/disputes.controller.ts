import { Body, Controller, Get, HttpCode, Param, Post, Req } from '@nestjs/common';
import { ApiOperation, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { linksById } from '../openapi/response-links';
import {
  DISPUTE_COMMAND_TYPES,
  DISPUTE_STATUSES,
  DisputeListFilterFieldsDto,
  type DisputeCommandReplyData,
  type DisputeStatus,
  type DisputeView,
  type OpenDisputeCommandData,
} from '@mp/contracts-disputes';
import { paymentOrderKey } from '@mp/contracts-payments';
import { PathIdPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { checkReceiptFile, IsWholeNumberBetween, JsonNumberLiteral, ORDER_ID_PATTERN, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { CurrentMerchant, type AuthenticatedMerchant, type GatewayRequest } from '../auth/merchant-signature.guard';
import { ApiErrorResponses } from '../openapi/error.response';
import { MerchantApi } from '../openapi/merchant-api.decorator';
import { ApiListFiltersBody } from '../openapi/request-schemas';
import { DISPUTES_COMMAND_ROUTE, ServiceCommandBus } from '../commands/service-command.bus';
import { metadataOf } from '../payments/create-payment.request';
import { ApiCreationPeriodAndCursor } from '../payments/list-filters.request';
import { DisputesClient } from './disputes.client';
import { OpenDisputeBody } from './open-dispute.request';
import { DisputeListResponse, DisputeResponse } from './dispute.response';

/** A malformed dispute id is answered like an unknown one. */
export const DisputeIdParam = new PathIdPipe(/^dsp_[0-9a-f]{24}$/, 'DISPUTE_NOT_FOUND', (id) => `No dispute ${id}`);

@RequestMessages({ invalid: 'The list filters are not valid', unknownField: 'is not a filter; use status, order_id, created_from, created_to, limit, cursor' })
@ApiCreationPeriodAndCursor()
class DisputeListBody extends DisputeListFilterFieldsDto {
  @ApiPropertyOptional({ enum: DISPUTE_STATUSES })
  override status?: DisputeStatus;

  @ApiPropertyOptional({ description: 'Only the dispute of this pay-in (a pay-in has at most one)', pattern: ORDER_ID_PATTERN.source, example: 'A-1001' })
  override order_id?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  @IsOptional()
  @IsWholeNumberBetween(1, 100, 'json')
  limit?: JsonNumberLiteral;
}

/**
 * Spec endpoints 14 to 16. Opening goes to the disputes service as a command through Kafka
 * (`disputes.commands`, reply on the sending replica's `gateway.replies.<instance>`), like payment orders; reads go to its
 * internal API. A receipt is checked here (size, magic bytes) and stored over HTTP first, so
 * the command carries only its reference.
 */
@Controller('v2/disputes')
@MerchantApi('Disputes')
export class DisputesController {
  constructor(
    private readonly commandBus: ServiceCommandBus,
    private readonly disputes: DisputesClient,
  ) {}

  /**
   * Endpoint 14: 201 with the dispute's state object (a reopened dispute keeps its dispute_id).
   * The accepted outcome comes from payments once the order reads PENDING (refusals from
   * disputes), so no read after the 201 finds the order's old state (docs/architecture.md, "Disputes
   * read-your-writes").
   */
  @Post()
  @ApiOperation({
    operationId: 'openDispute',
    summary: 'Open a dispute on an incoming order',
    description:
      'With an optional amount, comment and receipt (PDF, PNG or JPEG, base64). A rejected dispute is reopened by opening it again within the dispute window; it keeps its dispute_id. Outcomes are callbacks to the default_callback_url of the merchant profile; without one they are kept (awaiting_url in the delivery log) and sent once it is set.',
  })
  @ApiResponse({ status: 201, type: DisputeResponse, description: 'The dispute, OPEN', links: linksById('dispute_id', 'disputeId', ['getDispute']) })
  @ApiErrorResponses('ORDER_NOT_FOUND')
  async open(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: OpenDisputeBody, @Req() request: GatewayRequest): Promise<DisputeView> {
    const merchantId = merchant.merchantId;
    let receiptId: string | null = null;
    if (body.receipt) {
      const content = Buffer.from(body.receipt.content_base64, 'base64');
      const detected = checkReceiptFile(content, 'receipt.content_base64');
      if (detected !== body.receipt.content_type) {
        throw new DomainError('VALIDATION_ERROR', 'The receipt is not what its content_type says', [
          { field: 'receipt.content_type', issue: `the file is ${detected}` },
        ]);
      }
      receiptId = (await this.disputes.storeReceipt(merchantId, body.receipt.file_name, content)).receiptId;
    }
    const data: OpenDisputeCommandData = {
      merchantId,
      orderId: body.order_id,
      amount: body.amount?.literal ?? null,
      comment: body.comment ?? null,
      receiptId,
      ...metadataOf(body),
    };
    const outcome = await this.commandBus.run<DisputeCommandReplyData>(DISPUTES_COMMAND_ROUTE, DISPUTE_COMMAND_TYPES.open, data, {
      key: paymentOrderKey(merchantId, body.order_id),
      subject: `merchant:${merchantId}/order:${body.order_id}`,
      correlationId: request.requestId ?? 'unknown',
    });
    return outcome.dispute;
  }

  /** Endpoint 15: newest first, cursor pages; list items equal state objects. */
  @Post('list')
  @HttpCode(200)
  @ApiListFiltersBody(DisputeListBody, 'OPEN')
  @ApiOperation({ operationId: 'listDisputes', summary: 'List disputes, newest first' })
  @ApiResponse({ status: 200, type: DisputeListResponse })
  @ApiErrorResponses()
  async list(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() filters: DisputeListBody) {
    return this.disputes.list(merchant.merchantId, {
      status: filters.status,
      order_id: filters.order_id,
      created_from: filters.created_from == null ? undefined : new Date(filters.created_from).toISOString(),
      created_to: filters.created_to == null ? undefined : new Date(filters.created_to).toISOString(),
      limit: filters.limit?.literal,
      cursor: filters.cursor,
    });
  }

  /** Endpoint 16: another merchant's dispute is 404 DISPUTE_NOT_FOUND, like a missing one. */
  @Get(':disputeId')
  @ApiOperation({ operationId: 'getDispute', summary: 'Dispute state' })
  @ApiResponse({ status: 200, type: DisputeResponse })
  @ApiErrorResponses('DISPUTE_NOT_FOUND')
  async get(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('disputeId', DisputeIdParam) disputeId: string): Promise<DisputeView> {
    return this.disputes.get(merchant.merchantId, disputeId);
  }
}
