/**
 * Contracts of the callback dispatcher:
 * - the gateway's internal webhook-profile endpoint, which the dispatcher reads the merchant's
 *   webhook secrets from (secrets never travel on a shared topic);
 * - the dispatcher's internal HTTP API, which the gateway's back office calls;
 * - the callback types and body merchants receive (docs/api/callbacks.md).
 */

export { CALLBACK_DELIVERY_STATUSES, CALLBACK_TYPES, TEST_CALLBACK_TYPE, type CallbackDeliveryStatus, type CallbackType } from './callback-types';
import type { CallbackDeliveryStatus, CallbackType } from './callback-types';

/**
 * What merchants receive. `data` is the state object at the version that caused the callback,
 * with that `version` in it: a receiver that has seen a higher version of the object drops the
 * callback (callbacks are at least once and unordered).
 */
export interface CallbackBody<TData = Record<string, unknown>> {
  /** Equals the `webhook-id` header; stable across retries and redeliveries. */
  id: string;
  type: CallbackType;
  /** When the fact happened (the source event's time), not when this attempt was made. */
  created_at: string;
  data: TData & { version: number };
}

/**
 * `GET /internal/merchants/{merchantId}/webhook-profile` on the gateway's internal port.
 * `webhook_secrets` lists the current secret first and, during a rotation overlap, the previous
 * one: callbacks are signed with every listed secret.
 */
export interface MerchantWebhookProfile {
  merchant_id: string;
  status: 'active' | 'suspended';
  default_callback_url: string | null;
  webhook_secrets: Array<{ secret: string; role: 'current' | 'previous'; valid_until: string | null }>;
  /** The operator's allow-list of callback hosts for this merchant (empty: any host the global rules allow). */
  allowed_callback_destinations?: string[];
}

export function merchantWebhookProfilePath(merchantId: string): string {
  return `/internal/merchants/${encodeURIComponent(merchantId)}/webhook-profile`;
}

export type CallbackAttemptOutcome = 'in_flight' | 'succeeded' | 'http_error' | 'redirect' | 'gone' | 'timeout' | 'network_error' | 'refused_destination';

export interface CallbackAttemptView {
  attempt_number: number;
  started_at: string;
  /** The dispatcher replica that made the attempt. */
  instance_id: string;
  webhook_timestamp: number;
  outcome: CallbackAttemptOutcome;
  response_status: number | null;
  latency_ms: number | null;
  /** The first bytes of the receiver's answer, as text (untrusted input: shown, never parsed). */
  response_excerpt: string | null;
  error: string | null;
}

/** One callback of one event, with every attempt (the delivery log). */
export interface CallbackDeliveryView {
  delivery_id: string;
  merchant_id: string;
  callback_type: CallbackType;
  subject: { kind: string; id: string };
  source_event: { id: string; type: string; topic: string };
  state_version: number;
  /** Null while the delivery awaits the merchant's first default callback URL (`awaiting_url`). */
  target_url: string | null;
  status: CallbackDeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  body: CallbackBody;
  attempts: CallbackAttemptView[];
}

/** Why an endpoint is disabled: it answered 410 Gone, or it failed too long (CALLBACK_ENDPOINT_DISABLE_AFTER_*). */
export type EndpointDisabledCause = 'gone' | 'consecutive_failures';

/** An endpoint (merchant × URL) disabled by a 410 or a long run of failures: nothing is sent to it until re-enabled. */
export interface CallbackEndpointView {
  merchant_id: string;
  url: string;
  disabled_at: string;
  cause: EndpointDisabledCause;
  reason: string;
  /** Deliveries parked until the endpoint is re-enabled. */
  parked_deliveries: number;
}

/** One callback in a merchant's delivery log (`GET /v2/webhooks/deliveries`): no body, secret or signature. */
export interface MerchantWebhookDeliveryView {
  delivery_id: string;
  /** The platform event that caused it (a redelivery keeps it, and the `webhook-id`). */
  event_id: string;
  event_type: CallbackType;
  /** The order it concerns (a dispute's disputed order); null for a test callback. */
  order_id: string | null;
  /** Null while the delivery awaits your first default callback URL (`awaiting_url`). */
  url: string | null;
  status: CallbackDeliveryStatus;
  attempt_count: number;
  last_attempt_at: string | null;
  /** The HTTP status of the latest attempt's answer; null before any, or when there was none (timeout, network error). */
  last_response_code: number | null;
  next_attempt_at: string | null;
  created_at: string;
}

export interface MerchantWebhookAttemptView {
  attempt_number: number;
  started_at: string;
  response_code: number | null;
  duration_ms: number | null;
  /** in_flight, succeeded, http_error, redirect, gone, timeout, network_error or refused_destination. */
  outcome: CallbackAttemptOutcome;
}

/** One delivery with every attempt (`GET /v2/webhooks/deliveries/{deliveryId}`). */
export interface MerchantWebhookDeliveryDetailView extends MerchantWebhookDeliveryView {
  attempts: MerchantWebhookAttemptView[];
}

export interface MerchantWebhookDeliveryPage {
  data: MerchantWebhookDeliveryView[];
  has_more: boolean;
  next_cursor: string | null;
}

/** The dispatcher's internal API, called by the gateway's back office and the merchants' webhook tools. */
export const CALLBACKS_INTERNAL_PATHS = {
  merchantDeliveries: (merchantId: string) => `/internal/merchants/${encodeURIComponent(merchantId)}/deliveries`,
  merchantDelivery: (merchantId: string, deliveryId: string) =>
    `/internal/merchants/${encodeURIComponent(merchantId)}/deliveries/${encodeURIComponent(deliveryId)}`,
  merchantRedeliver: (merchantId: string, deliveryId: string) =>
    `/internal/merchants/${encodeURIComponent(merchantId)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
  merchantTestDelivery: (merchantId: string) => `/internal/merchants/${encodeURIComponent(merchantId)}/test-deliveries`,
  deliveries: '/internal/deliveries',
  redeliver: (deliveryId: string) => `/internal/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
  disabledEndpoints: '/internal/endpoints/disabled',
  enableEndpoint: '/internal/endpoints/enable',
  /** The merchant set its default callback URL: the outcomes awaiting one go there now. */
  defaultUrlSet: (merchantId: string) => `/internal/merchants/${encodeURIComponent(merchantId)}/default-callback-url`,
} as const;

export {
  AdvanceCallbacksClockRequestDto,
  CALLBACK_DELIVERY_ID_PATTERN,
  CallbackDeliveriesQueryDto,
  DefaultCallbackUrlSetRequestDto,
  DisabledEndpointsQueryDto,
  EnableCallbackEndpointBodyDto,
  EnableCallbackEndpointRequestDto,
  ENDPOINT_URL_PATTERN,
  SendTestWebhookBodyDto,
  TestDeliveryRequestDto,
  WebhookDeliveriesQueryDto,
} from './requests';

export {
  callbackDestinationIssue,
  DEFAULT_CALLBACK_ALLOWED_PORTS,
  isAllowListEntry,
  parseAllowedPorts,
  readAllowHttpCallbackUrls,
  readCallbackAllowedPorts,
  type CallbackDestinationRules,
} from './destination-policy';
