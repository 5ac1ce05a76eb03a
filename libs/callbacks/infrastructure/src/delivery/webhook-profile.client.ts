import { merchantWebhookProfilePath, type MerchantWebhookProfile } from '@mp/contracts-callbacks';
import type { ServiceAuthorization } from '@mp/shared-service-auth';
import { Webhook } from 'standardwebhooks';

/** Where the dispatcher gets a merchant's webhook secrets and default callback URL. */
export interface WebhookProfiles {
  /**
   * Null when the merchant does not exist; throws when the source cannot answer (retried later).
   * `fresh` skips the cache: routing to the default URL must see a URL the merchant just set.
   */
  find(merchantId: string, options?: { fresh?: boolean }): Promise<MerchantWebhookProfile | null>;
}

/**
 * The gateway's internal-only listener (its own port, the dispatcher's service token), cached briefly so a
 * burst of callbacks costs one request per merchant. Secrets stay in this process's memory
 * only; they are never written to the dispatcher's database or to a topic.
 */
export class GatewayWebhookProfiles implements WebhookProfiles {
  private readonly cache = new Map<string, { profile: MerchantWebhookProfile | null; expiresAtMs: number }>();

  constructor(
    private readonly baseUrl: string,
    private readonly authorization: ServiceAuthorization,
    private readonly cacheTtlMs: number,
    private readonly timeoutMs = 3_000,
  ) {}

  async find(merchantId: string, { fresh = false }: { fresh?: boolean } = {}): Promise<MerchantWebhookProfile | null> {
    const cached = this.cache.get(merchantId);
    if (!fresh && cached && cached.expiresAtMs > Date.now()) return cached.profile;
    const response = await fetch(`${this.baseUrl}${merchantWebhookProfilePath(merchantId)}`, {
      headers: { authorization: await this.authorization() },
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    if (response.status !== 200 && response.status !== 404) throw new Error(`the gateway's webhook profile answered ${response.status}`);
    const profile = response.status === 404 ? null : ((await response.json()) as MerchantWebhookProfile);
    if (this.cache.size > 10_000) this.cache.clear();
    this.cache.set(merchantId, { profile, expiresAtMs: Date.now() + this.cacheTtlMs });
    return profile;
  }
}

/**
 * Standard Webhooks headers for one attempt, signed with every secret the profile lists (the
 * current one and, during a rotation overlap, the previous one): `webhook-signature` then holds
 * two space-separated `v1,` signatures and receivers with either secret accept it.
 */
export function signedHeaders(webhookId: string, attemptTime: Date, body: string, secrets: string[]): Record<string, string> {
  const signatures = secrets.map((secret) => new Webhook(secret).sign(webhookId, attemptTime, body));
  return {
    'webhook-id': webhookId,
    'webhook-timestamp': Math.floor(attemptTime.getTime() / 1_000).toString(),
    'webhook-signature': signatures.join(' '),
  };
}
