import { Body, Controller, Get, Inject, Param, Put, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiResponse } from '@nestjs/swagger';
import type { BackofficePrincipal } from '@mp/access-infrastructure';
import { isAllowListEntry } from '@mp/contracts-callbacks';
import { MerchantIdParam } from '@mp/shared-nest-http';
import { FieldRule, RequestMessages } from '@mp/shared-util-validation';
import { BackofficeGuard, CurrentPrincipal, Roles } from '../backoffice/backoffice.guard';
import { CallbackDestinationPolicy } from './callback-destination.policy';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';

const ALLOW_LIST_ENTRIES_MAX = 50;

@RequestMessages({ invalid: 'The callback allow-list is not valid' })
class PutCallbackAllowListBody {
  @ApiProperty({
    description: 'Host names, *.wildcards, IP addresses or CIDR ranges; empty lifts the restriction',
    example: ['shop.example', '*.shop.example', '203.0.113.0/24'],
  })
  @FieldRule('isCallbackAllowList', (value) => {
    if (!Array.isArray(value) || value.length > ALLOW_LIST_ENTRIES_MAX) return `must be an array of at most ${ALLOW_LIST_ENTRIES_MAX} entries`;
    const invalid = value.find((entry) => typeof entry !== 'string' || !isAllowListEntry(entry));
    return invalid === undefined ? null : `${JSON.stringify(invalid)} is not a lower-case host name, *.host name, IP address or CIDR range`;
  })
  entries!: string[];
}

/** An operator's allow-list of callback hosts per merchant, in addition to the global rules (docs/operations/gateway.md). */
@BackofficeApiDocs('Callbacks')
@Controller('backoffice/v1/merchants/:merchantId/callback-allow-list')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class CallbackAllowListController {
  constructor(@Inject(CallbackDestinationPolicy) private readonly destinations: CallbackDestinationPolicy) {}

  @Get()
  @ApiOperation({ operationId: 'getCallbackAllowList', summary: "A merchant's callback destination allow-list" })
  @ApiResponse({ status: 200, description: 'The allow-list' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async get(@Param('merchantId', MerchantIdParam) merchantId: string): Promise<unknown> {
    await this.destinations.requireMerchant(merchantId);
    return await this.destinations.allowListOf(merchantId);
  }

  /** Replaces the list. Callbacks already accepted for hosts now off the list are refused at delivery. */
  @Put()
  @ApiOperation({ operationId: 'putCallbackAllowList', summary: "Replace a merchant's callback destination allow-list" })
  @ApiResponse({ status: 200, description: 'The stored allow-list' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async put(
    @CurrentPrincipal() operator: BackofficePrincipal,
    @Param('merchantId', MerchantIdParam) merchantId: string,
    @Body() body: PutCallbackAllowListBody,
  ): Promise<unknown> {
    const entries = [...new Set(body.entries)];
    return await this.destinations.setAllowList(merchantId, entries, operator.credentialId);
  }
}
