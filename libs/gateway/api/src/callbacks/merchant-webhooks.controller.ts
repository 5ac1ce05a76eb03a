import { Body, Controller, Get, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiPropertyOptional, ApiResponse, ApiTags } from '@nestjs/swagger';
import { MerchantCredentialStore } from '@mp/access-infrastructure';
import {
  CALLBACK_DELIVERY_ID_PATTERN,
  CALLBACK_DELIVERY_STATUSES,
  CALLBACK_TYPES,
  EnableCallbackEndpointBodyDto,
  SendTestWebhookBodyDto,
  TEST_CALLBACK_TYPE,
  WebhookDeliveriesQueryDto,
  type CallbackDeliveryStatus,
  type CallbackType,
} from '@mp/contracts-callbacks';
import { PathIdPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyReply } from 'fastify';
import { CurrentMerchant, MerchantSignatureGuard, type AuthenticatedMerchant } from '../auth/merchant-signature.guard';
import { CallbackDestinationPolicy } from '../callback-destinations/callback-destination.policy';
import { stringifyResponse } from '../http/json-body';
import { CallbacksClient } from './callbacks.client';
import {
  DisabledWebhookEndpointListResponse,
  EnabledWebhookEndpointResponse,
  WebhookDeliveryDetailResponse,
  WebhookDeliveryListResponse,
} from './merchant-webhooks.response';

/** Another merchant's callback is answered like a missing one, and so is a malformed id. */
const DeliveryIdParam = new PathIdPipe(CALLBACK_DELIVERY_ID_PATTERN, 'NOT_FOUND', (id) => `No callback ${id}`);

class WebhookDeliveriesQuery extends WebhookDeliveriesQueryDto {
  @ApiPropertyOptional({ description: 'Only this order’s callbacks (a dispute’s callbacks count for its disputed order)', example: 'A-1' })
  override order_id?: string;

  @ApiPropertyOptional({ enum: CALLBACK_DELIVERY_STATUSES })
  override status?: CallbackDeliveryStatus;

  @ApiPropertyOptional({ enum: CALLBACK_TYPES })
  override event_type?: CallbackType;

  @ApiPropertyOptional({ description: 'ISO 8601 date or date-time, inclusive', example: '2026-01-31T00:00:00Z' })
  override created_from?: string;

  @ApiPropertyOptional({ description: 'ISO 8601 date or date-time, inclusive', example: '2026-02-01T00:00:00Z' })
  override created_to?: string;

  @ApiPropertyOptional({ description: 'next_cursor of the previous page' })
  override cursor?: string;

  @ApiPropertyOptional({ type: 'integer', minimum: 1, maximum: 100, default: 50 })
  override limit?: string;
}

class SendTestWebhookBody extends SendTestWebhookBodyDto {
  @ApiPropertyOptional({ description: 'Where to send it; the merchant’s default_callback_url without it. The same destination rules as a callback_url.', example: 'https://shop.example/callbacks' })
  override url?: string;

  @ApiPropertyOptional({ enum: [TEST_CALLBACK_TYPE], default: TEST_CALLBACK_TYPE })
  override event_type?: typeof TEST_CALLBACK_TYPE;
}

class EnableWebhookEndpointBody extends EnableCallbackEndpointBodyDto {
  @ApiProperty({ description: 'The endpoint as GET /v2/webhooks/endpoints lists it', example: 'https://shop.example/callbacks' })
  override url!: string;
}

const send = (reply: FastifyReply, status: number, body: unknown) => reply.status(status).type('application/json').send(stringifyResponse(body));

/**
 * Merchants' webhook tools: their own delivery log, redelivery, a test callback, and their
 * disabled endpoints. The dispatcher answers every query for the calling merchant only (the
 * merchant id is part of each internal path), so another merchant's callback is a 404. Like
 * every signed /v2 route, each call is charged to the merchant's rate limit (MerchantRateLimitInterceptor).
 */
@ApiTags('Webhooks')
@Controller('v2/webhooks')
@UseGuards(MerchantSignatureGuard)
export class MerchantWebhooksController {
  constructor(
    private readonly callbacks: CallbacksClient,
    private readonly merchants: MerchantCredentialStore,
    private readonly destinations: CallbackDestinationPolicy,
  ) {}

  @Get('deliveries')
  @ApiOperation({ operationId: 'listWebhookDeliveries', summary: 'Your callbacks, newest first' })
  @ApiResponse({ status: 200, type: WebhookDeliveryListResponse })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR: a filter, the limit or the cursor is not valid' })
  async deliveries(@CurrentMerchant() merchant: AuthenticatedMerchant, @Query() query: WebhookDeliveriesQuery, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, 200, await this.callbacks.merchantDeliveries(merchant.merchantId, query));
  }

  @Get('deliveries/:deliveryId')
  @ApiOperation({ operationId: 'getWebhookDelivery', summary: 'One callback with every attempt' })
  @ApiResponse({ status: 200, type: WebhookDeliveryDetailResponse })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no callback of yours has this id' })
  async delivery(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('deliveryId', DeliveryIdParam) deliveryId: string, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, 200, await this.callbacks.merchantDelivery(merchant.merchantId, deliveryId));
  }

  @Post('deliveries/:deliveryId/redeliver')
  @ApiOperation({ operationId: 'redeliverWebhook', summary: 'Send a callback again now: the same webhook-id and body, freshly signed' })
  @ApiResponse({ status: 202, type: WebhookDeliveryDetailResponse })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: no callback of yours has this id' })
  @ApiResponse({ status: 409, description: 'WEBHOOK_ENDPOINT_DISABLED: its endpoint is disabled; re-enabling it sends its parked callbacks' })
  async redeliver(@CurrentMerchant() merchant: AuthenticatedMerchant, @Param('deliveryId', DeliveryIdParam) deliveryId: string, @Res() reply: FastifyReply): Promise<void> {
    await send(reply, 202, await this.callbacks.merchantRedeliver(merchant.merchantId, deliveryId));
  }

  @Post('test')
  @ApiOperation({ operationId: 'sendTestWebhook', summary: 'Send a signed webhook.test callback' })
  @ApiResponse({ status: 202, type: WebhookDeliveryDetailResponse })
  @ApiResponse({ status: 400, description: 'VALIDATION_ERROR: the url is not an allowed callback destination, or there is no url and no default_callback_url' })
  @ApiResponse({ status: 409, description: 'WEBHOOK_ENDPOINT_DISABLED: the endpoint is disabled; re-enable it first' })
  async sendTest(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: SendTestWebhookBody, @Res() reply: FastifyReply): Promise<void> {
    const url = body.url ?? (await this.merchants.findProfile(merchant.merchantId))?.default_callback_url ?? null;
    if (url === null) throw new DomainError('VALIDATION_ERROR', 'Name the url to send the test callback to: you have no default_callback_url', [{ field: 'url', issue: 'is required without a default_callback_url' }]);
    await this.destinations.assertAcceptable(merchant.merchantId, url, 'url');
    await send(reply, 202, await this.callbacks.merchantTestDelivery(merchant.merchantId, url));
  }

  @Get('endpoints')
  @ApiOperation({ operationId: 'listWebhookEndpoints', summary: 'Your disabled callback endpoints, and why' })
  @ApiResponse({ status: 200, type: DisabledWebhookEndpointListResponse })
  async endpoints(@CurrentMerchant() merchant: AuthenticatedMerchant, @Res() reply: FastifyReply): Promise<void> {
    const { data } = await this.callbacks.disabledEndpoints(merchant.merchantId);
    await send(reply, 200, { data: data.map(({ url, disabled_at, cause, reason, parked_deliveries }) => ({ url, disabled_at, cause, reason, parked_deliveries })) });
  }

  @Post('endpoints/enable')
  @ApiOperation({ operationId: 'enableWebhookEndpoint', summary: 'Re-enable a disabled endpoint and send its parked callbacks' })
  @ApiResponse({ status: 200, type: EnabledWebhookEndpointResponse })
  @ApiResponse({ status: 404, description: 'NOT_FOUND: this endpoint of yours is not disabled' })
  async enable(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: EnableWebhookEndpointBody, @Res() reply: FastifyReply): Promise<void> {
    const { url, resumed_deliveries } = await this.callbacks.enableEndpoint(merchant.merchantId, body.url);
    await send(reply, 200, { url, resumed_deliveries });
  }
}
