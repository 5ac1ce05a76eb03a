import { Body, Controller, Inject, Post, Res } from '@nestjs/common';
import { ApiOperation, ApiResponse } from '@nestjs/swagger';
import { MerchantCredentialStore, WebhookSecretStore } from '@mp/access-infrastructure';
import type { Clock } from '@mp/shared-util-clock';
import type { FastifyReply } from 'fastify';
import { RateLimiter } from '../rate-limit/rate-limiter';
import { CurrentMerchant, RefusesReplay, type AuthenticatedMerchant } from '../auth/merchant-signature.guard';
import { ApiErrorResponses } from '../openapi/error.response';
import { MerchantApi } from '../openapi/merchant-api.decorator';
import { ApiSecretRotationResponse, WebhookSecretRotationResponse } from './merchant.response';
import { CLOCK, GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { overlapMsOf, rotateApiSecret, rotateWebhookSecret, RotateSecretBody } from './secret-rotation';

/**
 * A merchant rotates its own secrets, signed with a secret that verifies now. The new secret
 * is in the answer only (stored encrypted, never shown again); the previous one stays valid
 * until `previous_secret_valid_until`. Each signed rotation is accepted once (a replay is 409
 * REQUEST_REPLAYED), and rotations have a bucket of their own (SECRET_ROTATION_POLICY).
 */
@Controller('v2/merchant')
@MerchantApi('Merchant')
export class MerchantSecretsController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    @Inject(WebhookSecretStore) private readonly webhookSecrets: WebhookSecretStore,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RateLimiter) private readonly limiter: RateLimiter,
  ) {}

  /** 201 with the new API secret; 409 SECRET_ROTATION_IN_PROGRESS while the previous rotation's overlap runs. */
  @Post('api-secret/rotate')
  @ApiOperation({
    operationId: 'rotateApiSecret',
    summary: 'Rotate the API secret',
    description: 'The new secret is in this answer only. The previous one keeps verifying until previous_secret_valid_until.',
  })
  @ApiResponse({ status: 201, type: ApiSecretRotationResponse })
  @ApiErrorResponses('SECRET_ROTATION_IN_PROGRESS', 'NOT_FOUND', 'REQUEST_REPLAYED')
  @RefusesReplay()
  async rotateApiSecret(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: RotateSecretBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<ApiSecretRotationResponse> {
    await this.limiter.chargeSecretRotation(merchant.merchantId, 'api', reply);
    return rotateApiSecret(this.merchants, merchant.merchantId, overlapMsOf(body, this.settings.apiSecretOverlapHours), this.clock.now());
  }

  /** 201 with the new webhook secret; callbacks carry both signatures until the overlap ends. */
  @Post('webhook-secret/rotate')
  @ApiOperation({
    operationId: 'rotateWebhookSecret',
    summary: 'Rotate the webhook secret',
    description: 'The new secret is in this answer only. Callbacks carry signatures with both secrets until previous_secret_valid_until.',
  })
  @ApiResponse({ status: 201, type: WebhookSecretRotationResponse })
  @ApiErrorResponses('NOT_FOUND', 'REQUEST_REPLAYED')
  @RefusesReplay()
  async rotateWebhookSecret(
    @CurrentMerchant() merchant: AuthenticatedMerchant,
    @Body() body: RotateSecretBody,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<WebhookSecretRotationResponse> {
    await this.limiter.chargeSecretRotation(merchant.merchantId, 'webhook', reply);
    return rotateWebhookSecret(this.webhookSecrets, merchant.merchantId, overlapMsOf(body, this.settings.webhookSecretOverlapHours), this.clock.now());
  }
}
