import { Body, Controller, Get, HttpCode, Inject, Param, Post, Query, UseGuards } from '@nestjs/common';
import { ApiOperation, ApiProperty, ApiQuery, ApiResponse } from '@nestjs/swagger';
import { MerchantCredentialStore, WebhookSecretStore } from '@mp/access-infrastructure';
import { CALLBACK_DELIVERY_ID_PATTERN, CallbackDeliveriesQueryDto, DisabledEndpointsQueryDto, EnableCallbackEndpointBodyDto } from '@mp/contracts-callbacks';
import { MerchantIdParam, PathIdPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { MERCHANT_ID_PATTERN, ORDER_ID_PATTERN } from '@mp/shared-util-validation';
import { BackofficeGuard, Roles } from '../backoffice/backoffice.guard';
import { CLOCK, GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { overlapMsOf, rotateWebhookSecret, RotateSecretBody } from '../merchant/secret-rotation';
import type { Clock } from '@mp/shared-util-clock';
import { CallbacksClient } from './callbacks.client';
import { BackofficeApiDocs } from '../openapi/backoffice-api.decorator';
import { BackofficeApiErrorResponses } from '../openapi/error.response';

/** A malformed callback id names no callback: answered like an unknown one. */
const DeliveryIdParam = new PathIdPipe(CALLBACK_DELIVERY_ID_PATTERN, 'NOT_FOUND', (id) => `No callback ${id}`);

class EnableEndpointBody extends EnableCallbackEndpointBodyDto {
  @ApiProperty({ description: 'The endpoint as the delivery log shows it', example: 'https://shop.example/callbacks' })
  override url!: string;
}

/** Operators' callback tools: the delivery log, redelivery, disabled endpoints, webhook secret rotation. */
@BackofficeApiDocs('Callbacks')
@Controller('backoffice/v1')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class CallbacksBackofficeController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    @Inject(WebhookSecretStore) private readonly webhookSecrets: WebhookSecretStore,
    private readonly callbacks: CallbacksClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  /** The merchant as operators see it: the profile plus its callback endpoint state. */
  @Get('merchants/:merchantId')
  @ApiOperation({ operationId: 'getMerchantProfile', summary: "A merchant's profile, access status and callback settings" })
  @ApiResponse({ status: 200, description: 'The merchant' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async merchant(@Param('merchantId', MerchantIdParam) merchantId: string): Promise<unknown> {
    const [profile, access] = await Promise.all([this.merchants.findProfile(merchantId), this.merchants.findAccessRecord(merchantId, this.clock.now())]);
    if (!profile || !access) throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
    const disabled = await this.callbacks.disabledEndpoints(merchantId).then(
      (page) => page.data,
      () => null,
    );
    return {
      ...profile,
      default_callback_url_disabled: profile.default_callback_url
        ? disabled === null
          ? null
          : disabled.some((endpoint) => endpoint.url === profile.default_callback_url)
        : false,
      disabled_callback_endpoints: disabled,
      // Who suspended or reinstated it last, when and why; and the secret overlaps still running.
      ...access,
    };
  }

  /** `?merchant_id=&order_id=` or `?event_id=`: every callback with every attempt. */
  @Get('callbacks/deliveries')
  @ApiOperation({
    operationId: 'listCallbackDeliveries',
    summary: 'The callback delivery log',
    description:
      "One order's callbacks (`merchant_id` and `order_id`), or one event's (`event_id`, with which the server needs neither of the other two). OpenAPI parameters cannot say either-or, so this description requires the pair; a request with `event_id` alone is also answered (400 VALIDATION_ERROR for a request with neither).",
  })
  @ApiQuery({ name: 'merchant_id', required: true, schema: { type: 'string', pattern: MERCHANT_ID_PATTERN.source, example: 'mch_0123456789abcdef01234567' } })
  @ApiQuery({ name: 'order_id', required: true, schema: { type: 'string', pattern: ORDER_ID_PATTERN.source, example: 'A-1001' } })
  @ApiQuery({
    name: 'event_id',
    required: false,
    schema: { type: 'string', format: 'uuid' },
    description: "One event's callbacks, whatever merchant_id and order_id say",
  })
  @ApiResponse({ status: 200, description: 'A page of deliveries' })
  async deliveries(@Query() query: CallbackDeliveriesQueryDto): Promise<unknown> {
    const filter =
      query.event_id !== undefined ? { event_id: query.event_id } : { merchant_id: query.merchant_id as string, order_id: query.order_id as string };
    return await this.callbacks.listDeliveries(filter);
  }

  @HttpCode(202)
  @Post('callbacks/deliveries/:deliveryId/redeliver')
  @ApiOperation({ operationId: 'redeliverCallback', summary: 'Send a callback again' })
  @ApiResponse({ status: 202, description: 'Queued' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'WEBHOOK_ENDPOINT_DISABLED')
  async redeliver(@Param('deliveryId', DeliveryIdParam) deliveryId: string): Promise<unknown> {
    return await this.callbacks.redeliver(deliveryId);
  }

  /** Endpoints a 410 disabled, every merchant's (or `?merchant_id=`). */
  @Get('callbacks/endpoints/disabled')
  @ApiOperation({ operationId: 'listDisabledCallbackEndpoints', summary: 'Callback endpoints disabled after 410 or too many failures' })
  @ApiResponse({ status: 200, description: 'The disabled endpoints' })
  async disabledEndpoints(@Query() query: DisabledEndpointsQueryDto): Promise<unknown> {
    return await this.callbacks.disabledEndpoints(query.merchant_id);
  }

  /** Body `{"url": ...}`: sends to it again, starting with the callbacks parked while it was disabled. */
  @HttpCode(200)
  @Post('merchants/:merchantId/callback-endpoints/enable')
  @ApiOperation({ operationId: 'enableCallbackEndpoint', summary: 'Enable a disabled callback endpoint' })
  @ApiResponse({ status: 200, description: 'The endpoint, enabled' })
  @BackofficeApiErrorResponses('NOT_FOUND')
  async enableEndpoint(@Param('merchantId', MerchantIdParam) merchantId: string, @Body() body: EnableEndpointBody): Promise<unknown> {
    return await this.callbacks.enableEndpoint(merchantId, body.url);
  }

  /**
   * A new webhook secret, shown once. The previous one keeps signing callbacks (a second
   * signature) for `overlap_hours` (default WEBHOOK_SECRET_OVERLAP_HOURS, at most 168).
   */
  @Post('merchants/:merchantId/webhook-secret/rotate')
  @ApiOperation({ operationId: 'rotateMerchantWebhookSecret', summary: "Rotate a merchant's webhook secret" })
  @ApiResponse({ status: 201, description: 'The new secret, shown once' })
  @BackofficeApiErrorResponses('NOT_FOUND', 'SECRET_ROTATION_IN_PROGRESS')
  async rotateWebhookSecret(@Param('merchantId', MerchantIdParam) merchantId: string, @Body() body: RotateSecretBody): Promise<unknown> {
    return await rotateWebhookSecret(this.webhookSecrets, merchantId, overlapMsOf(body, this.settings.webhookSecretOverlapHours), this.clock.now());
  }
}
