import { Body, Controller, Get, Inject, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { MerchantCredentialStore, WebhookSecretStore } from '@mp/access-infrastructure';
import { CALLBACK_DELIVERY_ID_PATTERN, CallbackDeliveriesQueryDto, DisabledEndpointsQueryDto, EnableCallbackEndpointBodyDto } from '@mp/contracts-callbacks';
import { MerchantIdParam, PathIdPipe, RequestPipe } from '@mp/shared-nest-http';
import { DomainError } from '@mp/shared-util-errors';
import { IsWholeNumberBetween, type JsonNumberLiteral, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import type { FastifyReply } from 'fastify';
import { BackofficeGuard, Roles } from '../backoffice/backoffice.guard';
import { json } from '../backoffice/operator.controller';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { CallbacksClient } from './callbacks.client';

const requestPipe = new RequestPipe();
/** The rotation's body is optional: no body rotates with the configured overlap. */
const optionalBodyPipe = new RequestPipe({ emptyBodyIsEmptyObject: true });
/** A malformed callback id names no callback: answered like an unknown one. */
const DeliveryIdParam = new PathIdPipe(CALLBACK_DELIVERY_ID_PATTERN, 'NOT_FOUND', (id) => `No callback ${id}`);

class EnableEndpointBody extends EnableCallbackEndpointBodyDto {
  @ApiProperty({ description: 'The endpoint as the delivery log shows it', example: 'https://shop.example/callbacks' })
  override url!: string;
}

@RequestMessages({ invalid: 'The rotation is not valid' })
class RotateWebhookSecretBody {
  @ApiPropertyOptional({ minimum: 0, maximum: 168, description: 'How long the previous secret still signs callbacks (default WEBHOOK_SECRET_OVERLAP_HOURS)' })
  @IsOptional()
  @IsWholeNumberBetween(0, 168, 'json')
  overlap_hours?: JsonNumberLiteral;
}

const HOUR_MS = 3_600_000;

/** Operators' callback tools: the delivery log, redelivery, disabled endpoints, webhook secret rotation. */
@Controller('backoffice/v1')
@UseGuards(BackofficeGuard)
@Roles('operator')
export class CallbacksBackofficeController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    @Inject(WebhookSecretStore) private readonly webhookSecrets: WebhookSecretStore,
    private readonly callbacks: CallbacksClient,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
  ) {}

  /** The merchant as operators see it: the profile plus its callback endpoint state. */
  @Get('merchants/:merchantId')
  async merchant(@Param('merchantId', MerchantIdParam) merchantId: string, @Res() reply: FastifyReply): Promise<void> {
    const profile = await this.merchants.findProfile(merchantId);
    if (!profile) throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
    const disabled = await this.callbacks.disabledEndpoints(merchantId).then(
      (page) => page.data,
      () => null,
    );
    await json(reply, 200, {
      ...profile,
      default_callback_url_disabled: profile.default_callback_url ? (disabled === null ? null : disabled.some((endpoint) => endpoint.url === profile.default_callback_url)) : false,
      disabled_callback_endpoints: disabled,
    });
  }

  /** `?merchant_id=&order_id=` or `?event_id=`: every callback with every attempt. */
  @Get('callbacks/deliveries')
  async deliveries(@Query(requestPipe) query: CallbackDeliveriesQueryDto, @Res() reply: FastifyReply): Promise<void> {
    const filter = query.event_id !== undefined ? { event_id: query.event_id } : { merchant_id: query.merchant_id as string, order_id: query.order_id as string };
    await json(reply, 200, await this.callbacks.listDeliveries(filter));
  }

  @Post('callbacks/deliveries/:deliveryId/redeliver')
  async redeliver(@Param('deliveryId', DeliveryIdParam) deliveryId: string, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 202, await this.callbacks.redeliver(deliveryId));
  }

  /** Endpoints a 410 disabled, every merchant's (or `?merchant_id=`). */
  @Get('callbacks/endpoints/disabled')
  async disabledEndpoints(@Query(requestPipe) query: DisabledEndpointsQueryDto, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 200, await this.callbacks.disabledEndpoints(query.merchant_id));
  }

  /** Body `{"url": ...}`: sends to it again, starting with the callbacks parked while it was disabled. */
  @Post('merchants/:merchantId/callback-endpoints/enable')
  async enableEndpoint(@Param('merchantId', MerchantIdParam) merchantId: string, @Body(requestPipe) body: EnableEndpointBody, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 200, await this.callbacks.enableEndpoint(merchantId, body.url));
  }

  /**
   * A new webhook secret, shown once. The previous one keeps signing callbacks (a second
   * signature) for `overlap_hours` (default WEBHOOK_SECRET_OVERLAP_HOURS, at most 168).
   */
  @Post('merchants/:merchantId/webhook-secret/rotate')
  async rotateWebhookSecret(@Param('merchantId', MerchantIdParam) merchantId: string, @Body(optionalBodyPipe) body: RotateWebhookSecretBody, @Res() reply: FastifyReply): Promise<void> {
    // IsWholeNumberBetween checked the literal: a whole number from 0 to 168.
    const overlapHours = body.overlap_hours === undefined ? this.settings.webhookSecretOverlapHours : Number(body.overlap_hours.literal);
    const rotated = await this.webhookSecrets.rotateWebhookSecret(merchantId, overlapHours * HOUR_MS);
    if (!rotated) throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
    await json(reply, 201, { merchant_id: merchantId, webhook_secret: rotated.webhookSecret, previous_secret_valid_until: rotated.previousValidUntil });
  }
}
