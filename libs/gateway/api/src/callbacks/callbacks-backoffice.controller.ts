import { Controller, Get, Inject, Param, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { MerchantCredentialStore, WebhookSecretStore } from '@mp/access-infrastructure';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import type { FastifyReply } from 'fastify';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { BackofficeGuard, Roles } from '../backoffice/backoffice.guard';
import { json } from '../backoffice/operator.controller';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { JsonNumberLiteral, parseJsonObjectBody } from '../http/json-body';
import { CallbacksClient } from './callbacks.client';

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
  async merchant(@Param('merchantId') merchantId: string, @Res() reply: FastifyReply): Promise<void> {
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
  async deliveries(@Query() query: Record<string, unknown>, @Res() reply: FastifyReply): Promise<void> {
    const value = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : '');
    const eventId = value('event_id');
    if (eventId) return json(reply, 200, await this.callbacks.listDeliveries({ event_id: eventId }));
    const details: ErrorDetail[] = [];
    if (!value('merchant_id')) details.push({ field: 'merchant_id', issue: 'is required unless event_id is given' });
    if (!value('order_id')) details.push({ field: 'order_id', issue: 'is required unless event_id is given' });
    if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'Name an order or an event', details);
    await json(reply, 200, await this.callbacks.listDeliveries({ merchant_id: value('merchant_id'), order_id: value('order_id') }));
  }

  @Post('callbacks/deliveries/:deliveryId/redeliver')
  async redeliver(@Param('deliveryId') deliveryId: string, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 202, await this.callbacks.redeliver(deliveryId));
  }

  /** Endpoints a 410 disabled, every merchant's (or `?merchant_id=`). */
  @Get('callbacks/endpoints/disabled')
  async disabledEndpoints(@Query('merchant_id') merchantId: string | undefined, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 200, await this.callbacks.disabledEndpoints(typeof merchantId === 'string' ? merchantId : undefined));
  }

  /** Body `{"url": ...}`: sends to it again, starting with the callbacks parked while it was disabled. */
  @Post('merchants/:merchantId/callback-endpoints/enable')
  async enableEndpoint(@Param('merchantId') merchantId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = parseJsonObjectBody(request.body as Buffer | undefined);
    if (typeof body['url'] !== 'string' || body['url'] === '') throw new DomainError('VALIDATION_ERROR', 'Name the endpoint', [{ field: 'url', issue: 'is required' }]);
    await json(reply, 200, await this.callbacks.enableEndpoint(merchantId, body['url']));
  }

  /**
   * A new webhook secret, shown once. The previous one keeps signing callbacks (a second
   * signature) for `overlap_hours` (default WEBHOOK_SECRET_OVERLAP_HOURS, at most 168).
   */
  @Post('merchants/:merchantId/webhook-secret/rotate')
  async rotateWebhookSecret(@Param('merchantId') merchantId: string, @Req() request: GatewayRequest, @Res() reply: FastifyReply): Promise<void> {
    const body = parseJsonObjectBody(request.body as Buffer | undefined);
    const overlap = body['overlap_hours'];
    let overlapHours = this.settings.webhookSecretOverlapHours;
    if (overlap !== undefined) {
      overlapHours = overlap instanceof JsonNumberLiteral ? Number(overlap.literal) : Number.NaN;
      if (!Number.isInteger(overlapHours) || overlapHours < 0 || overlapHours > 168) throw new DomainError('VALIDATION_ERROR', 'The rotation is not valid', [{ field: 'overlap_hours', issue: 'must be a whole number of hours, 0 to 168' }]);
    }
    const rotated = await this.webhookSecrets.rotateWebhookSecret(merchantId, overlapHours * HOUR_MS);
    if (!rotated) throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
    await json(reply, 201, { merchant_id: merchantId, webhook_secret: rotated.webhookSecret, previous_secret_valid_until: rotated.previousValidUntil });
  }
}
