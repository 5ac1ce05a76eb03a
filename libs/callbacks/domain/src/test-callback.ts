import type { CallbackIntent } from './callback-routing';

/** The subject kind of a merchant's test callback: it concerns no order. */
export const TEST_CALLBACK_SUBJECT_KIND = 'test';

/**
 * What `POST /v2/webhooks/test` sends: a `webhook.test` callback whose data says it is a test,
 * signed and delivered like every other callback (the same row, attempts and retries), so the
 * merchant sees it in the delivery log and can redeliver it.
 */
export function testCallbackIntent(merchantId: string, webhookId: string, url: string, now: Date): CallbackIntent {
  return {
    merchantId,
    callbackType: 'webhook.test',
    subject: { kind: TEST_CALLBACK_SUBJECT_KIND, id: webhookId },
    stateVersion: 1,
    target: { kind: 'url', url },
    state: { test: true, message: 'A test callback you asked for; it concerns no order.' },
    occurredAt: now.toISOString(),
  };
}
