/** Callback types of docs/api/callbacks.md, and the test callback merchants ask for. */
export const TEST_CALLBACK_TYPE = 'webhook.test';

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
  // Sent only when the merchant asks for it (POST /v2/webhooks/test), never by an event.
  TEST_CALLBACK_TYPE,
] as const;
export type CallbackType = (typeof CALLBACK_TYPES)[number];

/**
 * A delivery's states in the dispatcher: being attempted or retried, done, given up, parked while
 * its endpoint is disabled, or kept until the merchant sets a default callback URL (a withdrawal
 * or dispute outcome of a merchant that has none).
 */
export const CALLBACK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed', 'endpoint_disabled', 'awaiting_url'] as const;
export type CallbackDeliveryStatus = (typeof CALLBACK_DELIVERY_STATUSES)[number];
