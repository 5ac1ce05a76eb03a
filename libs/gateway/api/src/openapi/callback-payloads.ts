import { ApiProperty, getSchemaPath, OmitType } from '@nestjs/swagger';
import { DisputeResponse } from '../disputes/dispute.response';
import { PaymentOrderResponse } from '../payments/payment-order.response';
import { WithdrawalResponse } from '../withdrawals/withdrawal.response';

const VERSION = {
  type: 'integer',
  minimum: 1,
  description: "This object's version after the event; keep the highest per object and ignore lower ones",
  example: 4,
} as const;
const ID = {
  description: '`msg_` and the event id: the same as the webhook-id header, the same on every retry',
  example: 'msg_2f0a6c1e9b7d4e3f8a5c0b1d2e3f4a5b',
} as const;
const CREATED_AT = { format: 'date-time', description: 'When it happened, not when this attempt was made', example: '2026-01-01T00:07:12.340Z' } as const;

/** The order at the moment of the event, without redirect_url (no use once finished), plus version. */
export class PaymentCallbackOrder extends OmitType(PaymentOrderResponse, ['redirect_url'] as const) {
  @ApiProperty(VERSION)
  version!: number;
}

export class PaymentCallback {
  @ApiProperty(ID)
  id!: string;

  @ApiProperty({ enum: ['payment.succeeded', 'payment.failed', 'payment.cancelled', 'payment.expired'], example: 'payment.succeeded' })
  type!: string;

  @ApiProperty(CREATED_AT)
  created_at!: string;

  @ApiProperty({ type: PaymentCallbackOrder })
  data!: PaymentCallbackOrder;
}

export class WithdrawalCallbackWithdrawal extends WithdrawalResponse {
  @ApiProperty(VERSION)
  version!: number;
}

export class WithdrawalCallback {
  @ApiProperty(ID)
  id!: string;

  @ApiProperty({ enum: ['withdrawal.completed', 'withdrawal.failed'], example: 'withdrawal.completed' })
  type!: string;

  @ApiProperty(CREATED_AT)
  created_at!: string;

  @ApiProperty({ type: WithdrawalCallbackWithdrawal })
  data!: WithdrawalCallbackWithdrawal;
}

export class DisputeCallbackDispute extends DisputeResponse {
  @ApiProperty(VERSION)
  version!: number;
}

export class DisputeCallback {
  @ApiProperty(ID)
  id!: string;

  @ApiProperty({ enum: ['dispute.opened', 'dispute.accepted', 'dispute.rejected'], example: 'dispute.opened' })
  type!: string;

  @ApiProperty(CREATED_AT)
  created_at!: string;

  @ApiProperty({ type: DisputeCallbackDispute })
  data!: DisputeCallbackDispute;
}

export const CALLBACK_MODELS = [PaymentCallback, WithdrawalCallback, DisputeCallback];

/** Standard Webhooks headers on every callback (docs/api/callbacks.md). */
const CALLBACK_HEADERS = [
  { name: 'webhook-id', description: "The event id, as the body's `id`: deduplicate on it", example: 'msg_2f0a6c1e9b7d4e3f8a5c0b1d2e3f4a5b' },
  { name: 'webhook-timestamp', description: 'Unix seconds of this attempt; refuse one far from your clock', example: '1767226032' },
  {
    name: 'webhook-signature',
    description:
      'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{raw body}`, keyed by the base64-decoded part of your webhook secret after `whsec_`. Accept the request if any v1 signature matches (two while a webhook secret is being rotated).',
    example: 'v1,yToyJFM8NrJG5wL4SUonU5Ue6A5yoK0yQxaX7jY1V8I=',
  },
].map(({ name, description, example }) => ({ name, in: 'header', required: true, description, schema: { type: 'string' }, example }));

function callback(expression: string, summary: string, model: new () => unknown) {
  return {
    [expression]: {
      post: {
        summary,
        description:
          'Delivered at least once and in any order: order by `data.version`. Any 2xx within 15 seconds is success; anything else is retried with backoff. 410 Gone turns that URL off.',
        parameters: CALLBACK_HEADERS,
        requestBody: { required: true, content: { 'application/json': { schema: { $ref: getSchemaPath(model) } } } },
        // Signed with the webhook secret in the headers above, not with a security scheme of this API.
        security: [],
        responses: {
          '2XX': { description: 'Received; no retry' },
          '410': { description: 'Gone: the platform stops sending to this URL until you set it again' },
          default: { description: 'Retried later with backoff' },
        },
      },
    },
  };
}

/**
 * The callbacks object of the operations that cause callbacks (OpenAPI 3.0 has no top-level
 * `webhooks`; `callbacks` on the operation is how 3.0 says "this request leads to these").
 * Withdrawal and dispute outcomes go to the merchant's default callback URL, which no
 * runtime expression of the request names, so their key says so in words.
 */
export const CALLBACKS_BY_OPERATION: Record<string, object> = {
  createIncomingPayment: {
    paymentOutcome: callback('{$request.body#/callback_url}', 'The pay-in finished (and, after an accepted dispute, succeeded)', PaymentCallback),
  },
  createOutgoingPayment: { paymentOutcome: callback('{$request.body#/callback_url}', 'The payout finished', PaymentCallback) },
  createWithdrawal: {
    withdrawalOutcome: callback(
      'https://your-default-callback-url.example',
      'The withdrawal completed or failed (sent to the default_callback_url of GET /v2/merchant)',
      WithdrawalCallback,
    ),
  },
  openDispute: {
    disputeChanged: callback(
      'https://your-default-callback-url.example',
      'The dispute was opened, accepted or rejected (sent to the default_callback_url of GET /v2/merchant)',
      DisputeCallback,
    ),
  },
};
