import { Body, Controller, Get, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { ApiPropertyOptional } from '@nestjs/swagger';
import {
  DISPUTE_COMMAND_TYPES,
  DISPUTE_STATUSES,
  DisputeListFilterFieldsDto,
  OpenDisputeRequestDto,
  type DisputeCommandReplyData,
  type DisputeStatus,
  type OpenDisputeCommandData,
} from '@mp/contracts-disputes';
import { paymentOrderKey } from '@mp/contracts-payments';
import { PathIdPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { checkReceiptFile, IsWholeNumberBetween, JsonNumberLiteral, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { CurrentMerchant, MerchantSignatureGuard, type AuthenticatedMerchant, type GatewayRequest } from '../auth/merchant-signature.guard';
import { stringifyResponse } from '../http/json-body';
import { DISPUTES_COMMAND_ROUTE, PaymentCommandBus } from '../payments/payment-command.bus';
import { DisputesClient } from './disputes.client';
import { OutcomeCallbackDestination } from '../merchant/outcome-destination';

/** A malformed dispute id is answered like an unknown one. */
export const DisputeIdParam = new PathIdPipe(/^dsp_[0-9a-f]{24}$/, 'DISPUTE_NOT_FOUND', (id) => `No dispute ${id}`);

@RequestMessages({ invalid: 'The list filters are not valid', unknownField: 'is not a filter; use status, created_from, created_to, limit, cursor' })
class DisputeListBody extends DisputeListFilterFieldsDto {
  @ApiPropertyOptional({ enum: DISPUTE_STATUSES })
  override status?: DisputeStatus;

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
@UseGuards(MerchantSignatureGuard)
export class DisputesController {
  constructor(
    private readonly commandBus: PaymentCommandBus,
    private readonly disputes: DisputesClient,
    private readonly outcomeDestination: OutcomeCallbackDestination,
  ) {}

  /**
   * Endpoint 14: 201 with the dispute's state object (a reopened dispute keeps its dispute_id).
   * The accepted outcome comes from payments once the order reads PENDING (refusals from
   * disputes), so no read after the 201 finds the order's old state (README, "Disputes
   * read-your-writes").
   */
  @Post()
  async open(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: OpenDisputeRequestDto, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const merchantId = merchant.merchantId;
    await this.outcomeDestination.require(merchantId, 'dispute');
    let receiptId: string | null = null;
    if (body.receipt) {
      const content = Buffer.from(body.receipt.content_base64, 'base64');
      const detected = checkReceiptFile(content, 'receipt.content_base64');
      if (detected !== body.receipt.content_type) {
        throw new DomainError('VALIDATION_ERROR', 'The receipt is not what its content_type says', [{ field: 'receipt.content_type', issue: `the file is ${detected}` }]);
      }
      receiptId = (await this.disputes.storeReceipt(merchantId, body.receipt.file_name, content)).receiptId;
    }
    const data: OpenDisputeCommandData = { merchantId, orderId: body.order_id, amount: body.amount?.literal ?? null, comment: body.comment ?? null, receiptId };
    const outcome = await this.commandBus.send<DisputeCommandReplyData>(DISPUTES_COMMAND_ROUTE, DISPUTE_COMMAND_TYPES.open, data, {
      key: paymentOrderKey(merchantId, body.order_id),
      subject: `merchant:${merchantId}/order:${body.order_id}`,
      correlationId: request.requestId ?? 'unknown',
    });
    if (outcome.outcome === 'rejected') throw DomainError.fromDescription(outcome.error);
    await send(reply, 201, outcome.dispute);
  }

  /** Endpoint 15: newest first, cursor pages; list items equal state objects. */
  @Post('list')
  async list(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() filters: DisputeListBody, @Res() reply: FastifyReply): Promise<void> {
    await send(
      reply,
      200,
      await this.disputes.list(merchant.merchantId, {
        status: filters.status,
        created_from: filters.created_from == null ? undefined : new Date(filters.created_from).toISOString(),
        created_to: filters.created_to == null ? undefined : new Date(filters.created_to).toISOString(),
        limit: filters.limit?.literal,
        cursor: filters.cursor,
      }),
    );
  }

  /** Endpoint 16: another merchant's dispute is 404 DISPUTE_NOT_FOUND, like a missing one. */
  @Get(':disputeId')
  async get(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('disputeId', DisputeIdParam) disputeId: string, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, 200, await this.disputes.get(merchant.merchantId, disputeId));
  }
}

async function send(reply: FastifyReply, status: number, body: unknown): Promise<void> {
  await reply.status(status).type('application/json').send(stringifyResponse(body));
}
