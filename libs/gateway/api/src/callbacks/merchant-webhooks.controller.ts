import { Body, Controller, Get, HttpCode, Param, Post, Query } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse } from '@nestjs/swagger';
import { MerchantCredentialStore } from '@mp/access-infrastructure';
import {
  CALLBACK_DELIVERY_ID_PATTERN,
  CALLBACK_DELIVERY_STATUSES,
  CALLBACK_TYPES,
  EnableCallbackEndpointBodyDto,
  ENDPOINT_URL_PATTERN,
  SendTestWebhookBodyDto,
  TEST_CALLBACK_TYPE,
  WebhookDeliveriesQueryDto,
  type CallbackDeliveryStatus,
  type CallbackType,
} from '@mp/contracts-callbacks';
import { PathIdPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { CurrentMerchant, RefusesReplay, type AuthenticatedMerchant } from '../auth/merchant-signature.guard';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';
import { ApiErrorResponses } from '../openapi/error.response';
import { MerchantApi } from '../openapi/merchant-api.decorator';
import { CALLBACK_DESTINATION_RULES, CALLBACK_URL_LENGTH_MAX, CALLBACK_URL_SCHEMA } from '../openapi/request-schemas';
import { ApiCreationPeriodAndCursor } from '../payments/list-filters.request';
import { CallbacksClient } from './callbacks.client';
import {
  DisabledWebhookEndpointListResponse,
  EnabledWebhookEndpointResponse,
  WebhookDeliveryDetailResponse,
  WebhookDeliveryListResponse,
} from './merchant-webhooks.response';

/** Another merchant's callback is answered like a missing one, and so is a malformed id. */
const DeliveryIdParam = new PathIdPipe(CALLBACK_DELIVERY_ID_PATTERN, 'NOT_FOUND', (id) => `No callback ${id}`);

@ApiCreationPeriodAndCursor()
class WebhookDeliveriesQuery extends WebhookDeliveriesQueryDto {
  @ApiPropertyOptional({ description: 'Only this order’s callbacks (a dispute’s callbacks count for its disputed order)', example: 'A-1' })
  override order_id?: string;

  @ApiPropertyOptional({ enum: CALLBACK_DELIVERY_STATUSES })
  override status?: CallbackDeliveryStatus;

  @ApiPropertyOptional({ enum: CALLBACK_TYPES })
  override event_type?: CallbackType;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  override limit?: string;
}

class SendTestWebhookBody extends SendTestWebhookBodyDto {
  @ApiPropertyOptional({
    ...CALLBACK_URL_SCHEMA,
    description: `Where to send it; the merchant’s default_callback_url without it. ${CALLBACK_DESTINATION_RULES}`,
  })
  override url?: string;

  @ApiPropertyOptional({ enum: [TEST_CALLBACK_TYPE], default: TEST_CALLBACK_TYPE })
  override event_type?: typeof TEST_CALLBACK_TYPE;
}

class EnableWebhookEndpointBody extends EnableCallbackEndpointBodyDto {
  @ApiProperty({
    type: 'string',
    format: 'uri',
    maxLength: CALLBACK_URL_LENGTH_MAX,
    pattern: ENDPOINT_URL_PATTERN.source,
    description: 'The endpoint as GET /v2/webhooks/endpoints lists it (404 when no disabled endpoint has this URL)',
    example: 'https://shop.example/callbacks',
  })
  override url!: string;
}

/**
 * Merchants' webhook tools: their own delivery log, redelivery, a test callback, and their
 * disabled endpoints. The dispatcher answers every query for the calling merchant only (the
 * merchant id is part of each internal path), so another merchant's callback is a 404. Like
 * every signed /v2 route, each call is charged to the merchant's rate limit (MerchantRateLimitInterceptor).
 */
@Controller('v2/webhooks')
@MerchantApi('Webhooks')
export class MerchantWebhooksController {
  constructor(
    private readonly callbacks: CallbacksClient,
    private readonly merchants: MerchantCredentialStore,
    private readonly destinations: CallbackDestinationPolicy,
  ) {}

  @Get('deliveries')
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: 'Your callbacks, newest first' })
  @ApiResponse({ status: 200, type: WebhookDeliveryListResponse })
  @ApiErrorResponses()
  async deliveries(@CurrentMerchant() merchant: AuthenticatedMerchant, @Query() query: WebhookDeliveriesQuery) {
    return this.callbacks.merchantDeliveries(merchant.merchantId, query);
  }

  @Get('deliveries/:deliveryId')
  @ApiOperation({ operationId: 'getWebhookDelivery', summary: 'One callback with every attempt' })
  @ApiResponse({ status: 200, type: WebhookDeliveryDetailResponse })
  @ApiErrorResponses('NOT_FOUND')
  async delivery(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('deliveryId', DeliveryIdParam) deliveryId: string) {
    return this.callbacks.merchantDelivery(merchant.merchantId, deliveryId);
  }

  @Post('deliveries/:deliveryId/redeliver')
  @HttpCode(202)
  @ApiOperation({ operationId: 'redeliverWebhook', summary: 'Send a callback again now: the same webhook-id and body, freshly signed' })
  @ApiResponse({ status: 202, type: WebhookDeliveryDetailResponse })
  @ApiErrorResponses('NOT_FOUND', 'WEBHOOK_ENDPOINT_DISABLED', 'REQUEST_REPLAYED')
  @RefusesReplay()
  async redeliver(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('deliveryId', DeliveryIdParam) deliveryId: string) {
    return this.callbacks.merchantRedeliver(merchant.merchantId, deliveryId);
  }

  @Post('test')
  @HttpCode(202)
  @ApiOperation({ operationId: 'sendTestWebhook', summary: 'Send a signed webhook.test callback' })
  @ApiResponse({ status: 202, type: WebhookDeliveryDetailResponse })
  @ApiErrorResponses('WEBHOOK_ENDPOINT_DISABLED', 'REQUEST_REPLAYED')
  @RefusesReplay()
  async sendTest(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: SendTestWebhookBody) {
    const url = body.url ?? (await this.merchants.findProfile(merchant.merchantId))?.default_callback_url ?? null;
    if (url === null)
      throw new DomainError('VALIDATION_ERROR', 'Name the url to send the test callback to: you have no default_callback_url', [
        { field: 'url', issue: 'is required without a default_callback_url' },
      ]);
    await this.destinations.assertAcceptable(merchant.merchantId, url, 'url');
    return this.callbacks.merchantTestDelivery(merchant.merchantId, url);
  }

  @Get('endpoints')
  @ApiOperation({ operationId: 'listWebhookEndpoints', summary: 'Your disabled callback endpoints, and why' })
  @ApiResponse({ status: 200, type: DisabledWebhookEndpointListResponse })
  @ApiErrorResponses()
  async endpoints(@CurrentMerchant() merchant: AuthenticatedMerchant) {
    const { data } = await this.callbacks.disabledEndpoints(merchant.merchantId);
    return { data: data.map(({ url, disabled_at, cause, reason, parked_deliveries }) => ({ url, disabled_at, cause, reason, parked_deliveries })) };
  }

  @Post('endpoints/enable')
  @HttpCode(200)
  @ApiOperation({ operationId: 'enableWebhookEndpoint', summary: 'Re-enable a disabled endpoint and send its parked callbacks' })
  @ApiResponse({ status: 200, type: EnabledWebhookEndpointResponse })
  @ApiErrorResponses('NOT_FOUND', 'REQUEST_REPLAYED')
  @RefusesReplay()
  async enable(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: EnableWebhookEndpointBody) {
    const { url, resumed_deliveries } = await this.callbacks.enableEndpoint(merchant.merchantId, body.url);
    return { url, resumed_deliveries };
  }
}
