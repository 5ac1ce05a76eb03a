import { Body, Controller, Headers, Param, Post, Res } from '@nestjs/common';
import type { ConversionView, OperatorApprovalView } from '@mp/contracts-ledger';
import type { FastifyReply } from 'fastify';
import { RequestPipe } from '@mp/shared-nest-http';
import { ServiceCaller, type VerifiedCaller } from '@mp/shared-service-auth';
import { OperatorMoneyActions } from '../approvals/operator-money.service';
import { actingOperatorOf } from './acting-operator';
import { requestCausation } from './causation';
import { ConversionRequestDto, LedgerMerchantIdParam } from './ledger-requests';

const bodyPipe = new RequestPipe();

/**
 * Operators' conversions from one settlement currency into another (docs/operations/ledger.md, conversions), under the operator limits: the rate within the band around the
 * pair's reference, the amount under the pair's cap (400 VALIDATION_ERROR otherwise), and above
 * the approval threshold 202 with a request for a second operator instead of a booking.
 * Both legs commit in one transaction, so a conversion is either wholly booked or not at all.
 * Internal only: the gateway checked the operator.
 */
@Controller('internal/merchants/:merchantId/conversions')
export class InternalConversionsController {
  constructor(private readonly actions: OperatorMoneyActions) {}

  @Post()
  async convert(
    @Param('merchantId', LedgerMerchantIdParam) merchantId: string,
    @Body(bodyPipe) body: ConversionRequestDto,
    @Headers() headers: Record<string, string | undefined>,
    @Res({ passthrough: true }) reply: FastifyReply,
    @ServiceCaller() caller?: VerifiedCaller,
  ): Promise<ConversionView | OperatorApprovalView> {
    const request = {
      conversionId: body.conversion_id,
      fromCurrency: body.from_currency,
      toCurrency: body.to_currency,
      amountMinor: BigInt(body.amount_minor),
      rate: body.rate,
      reason: body.reason,
      operatorId: actingOperatorOf({ caller, body }),
    };
    const answer = await this.actions.convert(merchantId, request, requestCausation(headers));
    void reply.status(answer.status);
    return answer.body;
  }
}
