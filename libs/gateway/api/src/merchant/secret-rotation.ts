import { ApiPropertyOptional } from '@nestjs/swagger';
import type { MerchantCredentialStore, WebhookSecretStore } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';
import { IsWholeNumberBetween, type JsonNumberLiteral, RequestMessages } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { RequestOptions } from '@mp/shared-nest-http';

const HOUR_MS = 3_600_000;

export const SECRET_OVERLAP_HOURS_MAX = 168;

/** The body of every secret rotation, merchant's or operator's; optional: no body (or `{}`) rotates with the configured overlap. */
@RequestOptions({ emptyBodyIsEmptyObject: true })
@RequestMessages({ invalid: 'The rotation is not valid' })
export class RotateSecretBody {
  @ApiPropertyOptional({
    type: 'integer',
    minimum: 0,
    maximum: SECRET_OVERLAP_HOURS_MAX,
    nullable: true,
    description: 'How long the previous secret stays valid, in hours (default, also for null: the configured overlap)',
  })
  @IsOptional()
  @IsWholeNumberBetween(0, SECRET_OVERLAP_HOURS_MAX, 'json')
  overlap_hours?: JsonNumberLiteral | null;
}

/**
 * The overlap a rotation asked for, in milliseconds; IsWholeNumberBetween already checked the
 * literal. A null field counts as absent (docs/api/endpoints.md), and IsOptional lets null pass.
 */
export function overlapMsOf(body: RotateSecretBody, defaultHours: number): number {
  return (body.overlap_hours === undefined || body.overlap_hours === null ? defaultHours : Number(body.overlap_hours.literal)) * HOUR_MS;
}

/** Rotates the API secret and answers as both rotation routes do, or raises the refusal. */
export async function rotateApiSecret(
  store: MerchantCredentialStore,
  merchantId: string,
  overlapMs: number,
  now: Date,
  options: { endOverlapNow?: boolean } = {},
): Promise<{ merchant_id: string; api_secret: string; previous_secret_valid_until: string }> {
  const result = await store.rotateApiSecret(merchantId, overlapMs, now, options);
  if (result.kind === 'not_found') throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
  if (result.kind === 'refused') {
    throw new DomainError(
      result.code,
      `The previous API secret stays valid until ${result.previousValidUntil}; rotate again after that${options.endOverlapNow ? ', or with overlap_hours 0 to end it now' : ''}`,
      [{ field: 'overlap_hours', issue: 'a rotation is in progress' }],
      { previous_secret_valid_until: result.previousValidUntil },
    );
  }
  return { merchant_id: merchantId, api_secret: result.apiSecret, previous_secret_valid_until: result.previousValidUntil };
}

export async function rotateWebhookSecret(
  store: WebhookSecretStore,
  merchantId: string,
  overlapMs: number,
  now: Date,
): Promise<{ merchant_id: string; webhook_secret: string; previous_secret_valid_until: string }> {
  const rotated = await store.rotateWebhookSecret(merchantId, overlapMs, now);
  if (!rotated) throw new DomainError('NOT_FOUND', `No merchant ${merchantId}`);
  return { merchant_id: merchantId, webhook_secret: rotated.webhookSecret, previous_secret_valid_until: rotated.previousValidUntil };
}
