import { Body, Controller, Inject, Post, Res, UseGuards } from '@nestjs/common';
import { MerchantCredentialStore, WebhookSecretStore } from '@mp/access-infrastructure';
import type { Clock } from '@mp/shared-util-clock';
import type { FastifyReply } from 'fastify';
import { CurrentMerchant, MerchantSignatureGuard, type AuthenticatedMerchant } from '../auth/merchant-signature.guard';
import { json } from '../backoffice/operator.controller';
import { GATEWAY_CLOCK, GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { overlapMsOf, rotateApiSecret, rotateWebhookSecret, RotateSecretBody } from './secret-rotation';

/**
 * A merchant rotates its own secrets, signed with a secret that verifies now. The new secret
 * is in the answer only (stored encrypted, never shown again); the previous one stays valid
 * until `previous_secret_valid_until`.
 */
@Controller('v2/merchant')
@UseGuards(MerchantSignatureGuard)
export class MerchantSecretsController {
  constructor(
    private readonly merchants: MerchantCredentialStore,
    @Inject(WebhookSecretStore) private readonly webhookSecrets: WebhookSecretStore,
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(GATEWAY_CLOCK) private readonly clock: Clock,
  ) {}

  /** 201 with the new API secret; 409 SECRET_ROTATION_IN_PROGRESS while the previous rotation's overlap runs. */
  @Post('api-secret/rotate')
  async rotateApiSecret(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: RotateSecretBody, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 201, await rotateApiSecret(this.merchants, merchant.merchantId, overlapMsOf(body, this.settings.apiSecretOverlapHours), this.clock.now()));
  }

  /** 201 with the new webhook secret; callbacks carry both signatures until the overlap ends. */
  @Post('webhook-secret/rotate')
  async rotateWebhookSecret(@CurrentMerchant() merchant: AuthenticatedMerchant, @Body() body: RotateSecretBody, @Res() reply: FastifyReply): Promise<void> {
    await json(reply, 201, await rotateWebhookSecret(this.webhookSecrets, merchant.merchantId, overlapMsOf(body, this.settings.webhookSecretOverlapHours), this.clock.now()));
  }
}
