import { ApiProperty } from '@nestjs/swagger';
import {
  CALLBACK_DELIVERY_STATUSES,
  CALLBACK_TYPES,
  type CallbackAttemptOutcome,
  type CallbackDeliveryStatus,
  type CallbackType,
  type EndpointDisabledCause,
  type MerchantWebhookAttemptView,
  type MerchantWebhookDeliveryDetailView,
  type MerchantWebhookDeliveryPage,
  type MerchantWebhookDeliveryView,
} from '@mp/contracts-callbacks';

const ATTEMPT_OUTCOMES: readonly CallbackAttemptOutcome[] = [
  'in_flight',
  'succeeded',
  'http_error',
  'redirect',
  'gone',
  'timeout',
  'network_error',
  'refused_destination',
];
const DISABLED_CAUSES: readonly EndpointDisabledCause[] = ['gone', 'consecutive_failures'];

/** One callback in the merchant's delivery log: no body, secret or signature. */
export class WebhookDeliveryResponse implements MerchantWebhookDeliveryView {
  @ApiProperty({ description: 'The callback id, equal to its `webhook-id` header and body `id`', example: 'msg_0b7c6a4e5f7d4a519f3e2d7a9c1b0e11' })
  delivery_id!: string;

  @ApiProperty({
    description: 'The platform event that caused the callback; a redelivery keeps it',
    format: 'uuid',
    example: '0b7c6a4e-5f7d-4a51-9f3e-2d7a9c1b0e11',
  })
  event_id!: string;

  @ApiProperty({ description: 'The callback type (`webhook.test` for a test callback)', enum: CALLBACK_TYPES, example: 'payment.succeeded' })
  event_type!: CallbackType;

  @ApiProperty({ description: 'The order it concerns (a dispute’s disputed order); null for a test callback', type: String, nullable: true, example: 'A-1' })
  order_id!: string | null;

  @ApiProperty({
    description: 'Where it is sent; null while it awaits your first default callback URL',
    type: String,
    nullable: true,
    example: 'https://shop.example/callbacks',
  })
  url!: string | null;

  @ApiProperty({
    description:
      'pending: being attempted or waiting for a retry; succeeded: a 2xx answer; failed: every retry used up; endpoint_disabled: parked until the endpoint is re-enabled; awaiting_url: a withdrawal or dispute outcome kept until you set a default callback URL (PATCH /v2/merchant), then sent',
    enum: CALLBACK_DELIVERY_STATUSES,
    example: 'succeeded',
  })
  status!: CallbackDeliveryStatus;

  @ApiProperty({ description: 'Attempts made so far', type: 'integer', minimum: 0, example: 1 })
  attempt_count!: number;

  @ApiProperty({
    description: 'When the latest attempt started; null before the first',
    type: String,
    format: 'date-time',
    nullable: true,
    example: '2026-01-31T10:00:01.000Z',
  })
  last_attempt_at!: string | null;

  @ApiProperty({
    description: 'The HTTP status your endpoint answered the latest attempt with; null before any, or without an answer (timeout, network error)',
    type: 'integer',
    nullable: true,
    example: 200,
  })
  last_response_code!: number | null;

  @ApiProperty({ description: 'When the next attempt is due; null when none is planned', type: String, format: 'date-time', nullable: true, example: null })
  next_attempt_at!: string | null;

  @ApiProperty({ description: 'When the callback was recorded', format: 'date-time', example: '2026-01-31T10:00:00.000Z' })
  created_at!: string;
}

export class WebhookAttemptResponse implements MerchantWebhookAttemptView {
  @ApiProperty({ type: 'integer', minimum: 1, example: 1 })
  attempt_number!: number;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T10:00:01.000Z' })
  started_at!: string;

  @ApiProperty({ description: 'The HTTP status answered; null without an answer', type: 'integer', nullable: true, example: 500 })
  response_code!: number | null;

  @ApiProperty({ description: 'How long the attempt took; null while in flight', type: 'integer', nullable: true, example: 84 })
  duration_ms!: number | null;

  @ApiProperty({
    description:
      'What happened: succeeded (2xx), http_error (4xx, 5xx), redirect (3xx, never followed), gone (410), timeout, network_error, refused_destination (not an allowed destination), in_flight',
    enum: ATTEMPT_OUTCOMES,
    example: 'http_error',
  })
  outcome!: CallbackAttemptOutcome;
}

export class WebhookDeliveryDetailResponse extends WebhookDeliveryResponse implements MerchantWebhookDeliveryDetailView {
  @ApiProperty({ description: 'Every attempt, first to last', type: [WebhookAttemptResponse] })
  attempts!: WebhookAttemptResponse[];
}

export class WebhookDeliveryListResponse implements MerchantWebhookDeliveryPage {
  @ApiProperty({ type: [WebhookDeliveryResponse] })
  data!: WebhookDeliveryResponse[];

  @ApiProperty({ example: false })
  has_more!: boolean;

  @ApiProperty({ description: 'Pass as `cursor` for the next page; null on the last', type: String, nullable: true, example: null })
  next_cursor!: string | null;
}

export class DisabledWebhookEndpointResponse {
  @ApiProperty({ example: 'https://shop.example/callbacks' })
  url!: string;

  @ApiProperty({ format: 'date-time', example: '2026-01-31T10:00:00.000Z' })
  disabled_at!: string;

  @ApiProperty({
    description: 'gone: it answered 410 Gone; consecutive_failures: it failed every attempt for too long',
    enum: DISABLED_CAUSES,
    example: 'gone',
  })
  cause!: EndpointDisabledCause;

  @ApiProperty({ description: 'The same, in words', example: '410 Gone to callback msg_0b7c6a4e5f7d4a519f3e2d7a9c1b0e11' })
  reason!: string;

  @ApiProperty({ description: 'Callbacks waiting for the endpoint to be re-enabled', type: 'integer', minimum: 0, example: 1 })
  parked_deliveries!: number;
}

export class DisabledWebhookEndpointListResponse {
  @ApiProperty({ type: [DisabledWebhookEndpointResponse] })
  data!: DisabledWebhookEndpointResponse[];
}

export class EnabledWebhookEndpointResponse {
  @ApiProperty({ example: 'https://shop.example/callbacks' })
  url!: string;

  @ApiProperty({ description: 'Parked callbacks sent again now', type: 'integer', minimum: 0, example: 1 })
  resumed_deliveries!: number;
}
