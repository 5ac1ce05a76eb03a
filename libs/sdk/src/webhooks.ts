/**
 * Types of the webhook tools (`/v2/webhooks/...`, docs/api/callbacks.md#webhook-tools).
 * Written by hand because the OpenAPI description these SDK types were generated from does not
 * have these endpoints yet; once it does, they become path lookups like the rest (client.ts).
 */
import type { PaymentCallbackType, WithdrawalCallbackType, DisputeCallbackType } from './callbacks';

export type WebhookEventType = PaymentCallbackType | WithdrawalCallbackType | DisputeCallbackType | 'webhook.test';
export type WebhookDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'endpoint_disabled';

/** One callback in your delivery log: no body, secret or signature. */
export interface WebhookDelivery {
  /** The callback's `webhook-id` (and its body's `id`). */
  delivery_id: string;
  event_id: string;
  event_type: WebhookEventType;
  /** The order it concerns (a dispute's disputed order); null for a test callback. */
  order_id: string | null;
  url: string;
  status: WebhookDeliveryStatus;
  attempt_count: number;
  last_attempt_at: string | null;
  last_response_code: number | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface WebhookAttempt {
  attempt_number: number;
  started_at: string;
  response_code: number | null;
  duration_ms: number | null;
  outcome: 'in_flight' | 'succeeded' | 'http_error' | 'redirect' | 'gone' | 'timeout' | 'network_error' | 'refused_destination';
}

export interface WebhookDeliveryDetail extends WebhookDelivery {
  /** Every attempt, first to last. */
  attempts: WebhookAttempt[];
}

export interface WebhookDeliveryFilters {
  order_id?: string;
  status?: WebhookDeliveryStatus;
  event_type?: WebhookEventType;
  created_from?: string;
  created_to?: string;
  limit?: number;
}

export interface WebhookDeliveryPage {
  data: WebhookDelivery[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface DisabledWebhookEndpoint {
  url: string;
  disabled_at: string;
  cause: 'gone' | 'consecutive_failures';
  reason: string;
  parked_deliveries: number;
}

export interface SendTestWebhook {
  /** Where to send it; your default_callback_url without it. */
  url?: string;
  event_type?: 'webhook.test';
}

/** The query string of a delivery-log page: the only endpoint whose filters travel in the URL (unsigned, as the API defines). */
export function deliveriesQuery(filters: WebhookDeliveryFilters & { cursor?: string }): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(filters)) if (value !== undefined && value !== null) query.set(name, String(value));
  const text = query.toString();
  return text === '' ? '' : `?${text}`;
}
