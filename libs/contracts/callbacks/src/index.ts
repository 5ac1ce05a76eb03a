/**
 * Contracts of the callback dispatcher:
 * - the gateway's internal webhook-profile endpoint, which the dispatcher reads the merchant's
 *   webhook secrets from (secrets never travel on a shared topic);
 * - the dispatcher's internal HTTP API, which the gateway's back office calls;
 * - the callback types and body merchants receive (decisions.md "Callbacks").
 */

/** Callback types of decisions.md "Callbacks". */
export const CALLBACK_TYPES = [
  'payment.succeeded',
  'payment.failed',
  'payment.cancelled',
  'payment.expired',
  'dispute.opened',
  'dispute.accepted',
  'dispute.rejected',
  'withdrawal.completed',
  'withdrawal.failed',
] as const;
export type CallbackType = (typeof CALLBACK_TYPES)[number];

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

export type CallbackDeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'endpoint_disabled';
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
  target_url: string;
  status: CallbackDeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  delivered_at: string | null;
  created_at: string;
  body: CallbackBody;
  attempts: CallbackAttemptView[];
}

/** An endpoint (merchant × URL) that answered 410 Gone: nothing is sent to it until re-enabled. */
export interface CallbackEndpointView {
  merchant_id: string;
  url: string;
  disabled_at: string;
  reason: string;
  /** Deliveries parked until the endpoint is re-enabled. */
  parked_deliveries: number;
}

/** The dispatcher's internal API, called by the gateway's back office. */
export const CALLBACKS_INTERNAL_PATHS = {
  deliveries: '/internal/deliveries',
  redeliver: (deliveryId: string) => `/internal/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
  disabledEndpoints: '/internal/endpoints/disabled',
  enableEndpoint: '/internal/endpoints/enable',
} as const;

export {
  AdvanceCallbacksClockRequestDto,
  CALLBACK_DELIVERY_ID_PATTERN,
  CallbackDeliveriesQueryDto,
  DisabledEndpointsQueryDto,
  EnableCallbackEndpointBodyDto,
  EnableCallbackEndpointRequestDto,
} from './requests';

export {
  callbackDestinationIssue,
  DEFAULT_CALLBACK_ALLOWED_PORTS,
  isAllowListEntry,
  parseAllowedPorts,
  readCallbackAllowedPorts,
  type CallbackDestinationRules,
} from './destination-policy';
