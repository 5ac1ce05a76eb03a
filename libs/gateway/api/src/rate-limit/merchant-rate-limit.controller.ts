import { Body, Controller, Delete, Get, Inject, Param, Put, Res, UseGuards } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import type { BackofficePrincipal } from '@mp/access-infrastructure';
import { MerchantIdParam, RequestPipe } from '@mp/shared-nest-http';
import { IsWholeNumberBetween, JsonNumberLiteral, RequestMessages } from '@mp/shared-util-validation';
import type { FastifyReply } from 'fastify';
import { BackofficeGuard, CurrentPrincipal, Roles } from '../backoffice/backoffice.guard';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';
import { stringifyResponse } from '../http/json-body';
import { RateLimiter } from './rate-limiter';

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
@Controller('backoffice/v1/merchants/:merchantId/rate-limit')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class MerchantRateLimitController {
  constructor(
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
    @Inject(CallbackDestinationPolicy) private readonly destinations: CallbackDestinationPolicy,
  ) {}

  @Get()
  async get(@Param('merchantId', MerchantIdParam) merchantId: string, @Res() reply: FastifyReply): Promise<void> {
    await this.destinations.requireMerchant(merchantId);
    await send(reply, await this.limiter.merchantPolicy(merchantId));
  }

  @Put()
  async put(@CurrentPrincipal() operator: BackofficePrincipal, @Param('merchantId', MerchantIdParam) merchantId: string, @Body(new RequestPipe()) body: PutMerchantRateLimitBody, @Res() reply: FastifyReply): Promise<void> {
    await this.destinations.requireMerchant(merchantId);
    const policy = { ratePerSecond: Number(body.rate_per_second.literal), burst: Number(body.burst.literal) };
    await send(reply, await this.limiter.setMerchantPolicy(merchantId, policy, operator.credentialId));
  }

  /** Back to the global figures. */
  @Delete()
  async remove(@CurrentPrincipal() operator: BackofficePrincipal, @Param('merchantId', MerchantIdParam) merchantId: string, @Res() reply: FastifyReply): Promise<void> {
    await this.destinations.requireMerchant(merchantId);
    await send(reply, await this.limiter.setMerchantPolicy(merchantId, null, operator.credentialId));
  }
}

async function send(reply: FastifyReply, body: unknown): Promise<void> {
  await reply.status(200).type('application/json').send(stringifyResponse(body));
}
