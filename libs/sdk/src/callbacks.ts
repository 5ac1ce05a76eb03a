import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { Dispute, PaymentOrder, Withdrawal } from './client';

export type PaymentCallbackType = 'payment.succeeded' | 'payment.failed' | 'payment.cancelled' | 'payment.expired';
export type WithdrawalCallbackType = 'withdrawal.completed' | 'withdrawal.failed';
export type DisputeCallbackType = 'dispute.opened' | 'dispute.accepted' | 'dispute.rejected';

interface CallbackOf<Type extends string, Data> {
  /** `msg_...`, the same as the `webhook-id` header and on every redelivery: deduplicate by it. */
  id: string;
  type: Type;
  created_at: string;
  /** The object as its read endpoint shows it, plus its `version` (keep the highest per object). */
  data: Data & { version: number };
}

/** One callback's body (docs/api/callbacks.md). */
export type CallbackEvent =
  | CallbackOf<PaymentCallbackType, Omit<PaymentOrder, 'redirect_url'>>
  | CallbackOf<WithdrawalCallbackType, Withdrawal>
  | CallbackOf<DisputeCallbackType, Dispute>
  /** One you asked for with `webhooks.sendTest()`: answer it 2xx and otherwise ignore it. */
  | CallbackOf<'webhook.test', { test: true; message: string }>;

export type CallbackVerification = { valid: true; event: CallbackEvent } | { valid: false; reason: string };

/**
 * Verifies a received callback exactly as the platform signs it (Standard Webhooks: HMAC-SHA256
 * of `{webhook-id}.{webhook-timestamp}.{raw body}`, the key the base64 part of `whsec_...`),
 * with the standardwebhooks library: any of the space-separated `v1,` signatures may match, and a
 * `webhook-timestamp` more than 5 minutes from this machine's clock is refused.
 *
 * `secrets`: your webhook secret, or both while you roll out a rotated one (a callback matching
 * either is accepted). `rawBody`: the bytes as received, before any JSON parsing.
 */
export function verifyCallback(
  secrets: string | string[],
  rawBody: Buffer | string,
  headers: Record<string, string | string[] | undefined>,
): CallbackVerification {
  const flat: Record<string, string> = {};
  for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) {
    const value = headers[name] ?? headers[name.toLowerCase()];
    if (typeof value !== 'string' || value === '') return { valid: false, reason: `missing header ${name}` };
    flat[name] = value;
  }
  let reason = 'no webhook secret given';
  for (const secret of Array.isArray(secrets) ? secrets : [secrets]) {
    try {
      return { valid: true, event: new Webhook(secret).verify(rawBody, flat) as CallbackEvent };
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error;
      reason = error.message;
    }
  }
  return { valid: false, reason };
}
