import { merchantWebhookProfilePath, type MerchantWebhookProfile } from '@mp/contracts-callbacks';
import { InternalHttpClient, TtlCache, type ServiceAuthorization } from '@mp/shared-service-auth';
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
  private readonly gateway: InternalHttpClient;
  private readonly cache: TtlCache<MerchantWebhookProfile | null>;

  constructor(baseUrl: string, authorization: ServiceAuthorization, cacheTtlMs: number, timeoutMs = 3_000) {
    this.gateway = new InternalHttpClient({ service: 'gateway', baseUrl, timeoutMs, authorization });
    this.cache = new TtlCache(cacheTtlMs);
  }

  find(merchantId: string, { fresh = false }: { fresh?: boolean } = {}): Promise<MerchantWebhookProfile | null> {
    return this.cache.get(
      merchantId,
      async () => {
        const answer = await this.gateway.call<MerchantWebhookProfile>('GET', merchantWebhookProfilePath(merchantId));
        if (answer.status === 404) return null;
        if (answer.status !== 200 || answer.body === null) throw new Error(`the gateway's webhook profile answered ${answer.status}`);
        return answer.body;
      },
      { fresh },
    );
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
