import { Body, Controller, Delete, Get, Inject, Param, Put, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse } from '@nestjs/swagger';
import type { BackofficePrincipal } from '@mp/access-infrastructure';
import { MerchantIdParam, RequestPipe } from '@mp/shared-nest-http';
import { IsWholeNumberBetween, JsonNumberLiteral, RequestMessages } from '@mp/shared-util-validation';
import { BackofficeGuard, CurrentPrincipal, Roles } from '../backoffice/backoffice.guard';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';
import { RateLimiter } from './rate-limiter';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';

const FIGURE_MAX = 1_000_000;

@RequestMessages({ invalid: 'The rate limit is not valid' })
class PutMerchantRateLimitBody {
  @ApiProperty({ type: 'number', description: 'Tokens added per second', example: 200 })
  @IsWholeNumberBetween(1, FIGURE_MAX, 'json')
  rate_per_second!: JsonNumberLiteral;

  @ApiProperty({ type: 'number', description: 'The bucket size: requests admitted at once', example: 400 })
  @IsWholeNumberBetween(1, FIGURE_MAX, 'json')
  burst!: JsonNumberLiteral;
}

/** Operators' per-merchant rate limit, replacing GATEWAY_RATE_LIMIT_MERCHANT_* for one merchant (docs/operations/gateway.md). */
@BackofficeApiDocs('Rate limits')
@Controller('backoffice/v1/merchants/:merchantId/rate-limit')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class MerchantRateLimitController {
  constructor(
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    @Inject(CallbackDestinationPolicy) private readonly destinations: CallbackDestinationPolicy,
  ) {}

  @Get()
  @ApiOperation({ operationId: 'getMerchantRateLimit', summary: "A merchant's rate limit" })
  @ApiResponse({ status: 200, description: 'The limit in force' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async get(@Param('merchantId', MerchantIdParam) merchantId: string): Promise<unknown> {
    await this.destinations.requireMerchant(merchantId);
    return await this.limiter.merchantPolicy(merchantId);
  }

  @Put()
  @ApiOperation({ operationId: 'putMerchantRateLimit', summary: "Set a merchant's own rate limit" })
  @ApiResponse({ status: 200, description: 'The limit in force' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async put(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Body(new RequestPipe()) body: PutMerchantRateLimitBody,
  ): Promise<unknown> {
    await this.destinations.requireMerchant(merchantId);
    const policy = { ratePerSecond: Number(body.rate_per_second.literal), burst: Number(body.burst.literal) };
    return await this.limiter.setMerchantPolicy(merchantId, policy, operator.credentialId);
  }

  /** Back to the global figures. */
  @Delete()
  @ApiOperation({ operationId: 'deleteMerchantRateLimit', summary: 'Return a merchant to the default rate limit' })
  @ApiResponse({ status: 200, description: 'The limit in force' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async remove(@CurrentPrincipal() operator: BackofficePrincipal, @Param('merchantId', MerchantIdParam) merchantId: string): Promise<unknown> {
    await this.destinations.requireMerchant(merchantId);
    return await this.limiter.setMerchantPolicy(merchantId, null, operator.credentialId);
  }
}
