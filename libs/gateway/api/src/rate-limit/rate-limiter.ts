import { Inject, Injectable, type CallHandler, type ExecutionContext, type NestInterceptor, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Observable } from 'rxjs';
import { DataSource } from 'typeorm';
import type { GatewayRequest } from '../auth/merchant-signature.guard';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { TransportSecurityRule } from '../http/transport-security';
import { BucketLeases } from './bucket-lease';
import { addressBucketOf, clientAddressOf } from './client-address';
import { RateLimitStore } from './rate-limit.store';
import { rateLimitHeaders, type BucketAnswer, type BucketPolicy } from './token-bucket';

const SWEEP_INTERVAL_MS = 60_000;
/**
 * A merchant's own secret rotations, per kind (API, webhook): five at once, then one each ten
 * minutes. A merchant rotates now and then; a stream of rotations is a script gone wrong or
 * someone trying captured requests, and each one mints a secret.
 */
export const SECRET_ROTATION_POLICY: BucketPolicy = { ratePerSecond: 1 / 600, burst: 5 };
const FAILING_ADDRESSES_MAX = 100_000;

/** Routes whose callers carry a credential: limited per merchant after the signature, and per address on failures. */
// The console's sign-in takes a credential too: its failures count like a bad signature or bearer.
const CREDENTIAL_ROUTE_PREFIXES = ['/v2/', '/backoffice/', '/console/api/login'];

/**
 * The gateway's rate limits (docs/api/errors.md "Rate limits", docs/operations/gateway.md): one
 * shared bucket row per merchant or address, from which this replica leases tokens in blocks
 * (bucket-lease.ts: the bound it keeps and why).
 */
@Injectable()
export class RateLimiter implements OnModuleInit, OnModuleDestroy {
  private readonly store: RateLimitStore;
  /** This replica's leases on the shared buckets: one statement per lease, not per request (bucket-lease.ts states the bound). */
  private readonly leases: BucketLeases;
  private readonly proxies: TransportSecurityRule;
  private sweep?: NodeJS.Timeout;
  /** Addresses whose authentication-failure bucket was found empty, until a token is back (ms since the epoch). */
  private readonly failingAddresses = new Map<string, number>();

  constructor(
    @Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings,
    @Inject(DataSource) dataSource: DataSource,
  ) {
    this.store = new RateLimitStore(dataSource);
    this.leases = new BucketLeases(this.store);
    this.proxies = new TransportSecurityRule(settings.trustedProxies);
  }

  onModuleInit(): void {
    this.sweep = setInterval(() => {
      this.leases.forgetExpired();
      void this.store.sweepIdle();
    }, SWEEP_INTERVAL_MS);
    this.sweep.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.sweep);
  }

  /** Per merchant; called once the signature is verified, so a forged flood never drains a merchant's bucket. */
  async chargeMerchant(merchantId: string, reply: FastifyReply): Promise<void> {
    const answer = await this.leases.take(merchantBucket(merchantId), this.settings.rateLimits.merchant);
    refuseWhenEmpty(answer, answer.policy, reply, 'this merchant');
  }

  /**
   * One token of the merchant's bucket for this kind of secret rotation (SECRET_ROTATION_POLICY),
   * on top of its request bucket; 429 RATE_LIMITED with Retry-After when empty. On success it sets
   * no header: the RateLimit-* headers keep describing the merchant's request bucket.
   */
  async chargeSecretRotation(merchantId: string, kind: 'api' | 'webhook', reply: FastifyReply): Promise<void> {
    const answer = await this.leases.take(`secret-rotation:${kind}:${merchantId}`, SECRET_ROTATION_POLICY);
    if (!answer.allowed) refuseWhenEmpty(answer, SECRET_ROTATION_POLICY, reply, `this merchant's ${kind} secret rotations`);
  }

  /** The merchant's figures: an operator's override, or the global ones. */
  async merchantPolicy(merchantId: string): Promise<MerchantRateLimitView> {
    const override = await this.store.overrideOf(merchantBucket(merchantId));
    const policy = override ?? this.settings.rateLimits.merchant;
    return {
      merchant_id: merchantId,
      rate_per_second: policy.ratePerSecond,
      burst: policy.burst,
      source: override ? 'override' : 'default',
      updated_at: override ? override.updatedAt.toISOString() : null,
      updated_by: override?.updatedBy ?? null,
    };
  }

  /** Sets an operator's override for one merchant (null: back to the global figures), shared by every replica at once. */
  async setMerchantPolicy(merchantId: string, policy: BucketPolicy | null, actor: string): Promise<MerchantRateLimitView> {
    await this.store.setOverride(merchantBucket(merchantId), policy, actor);
    return this.merchantPolicy(merchantId);
  }

  /**
   * Per client address (an IPv6 client by its /64, addressBucketOf), before the body is read:
   * every route without a credential takes a token.
   * On /v2 and /backoffice/v1 nothing is read from the database before the credential check
   * (a signed request costs at most the merchant's lease statement): each 401 takes a token from the
   * address's failure bucket afterwards (onResponse), and when that finds the bucket empty, this
   * replica refuses the address there until a token is back. A 401 is answered before its token
   * is taken, and a forged request costs the gateway far less than that statement, so while a
   * lease of the address's failure bucket is in flight, the address's next credential requests
   * wait for it: otherwise a flood from one client is all answered before the first statement
   * comes back (on a loaded machine, 300 forgeries fitted in the 300 ms of one statement).
   * Beyond the bucket, a replica then admits at most the address's requests already past this
   * check when the bucket empties. Another replica learns it at the address's next failure there.
   * Registered on the Fastify instance, like configureGatewayHttp's hooks, before Nest adds its routes.
   */
  registerAddressLimits(fastify: FastifyInstance): void {
    const { address, authFailures } = this.settings.rateLimits;
    fastify.addHook('onRequest', async (request: FastifyRequest, reply: FastifyReply) => {
      const client = addressBucketOf(clientAddressOf(request.raw, this.proxies));
      if (!carriesCredential(request)) return refuseWhenEmpty(await this.leases.take(`address:${client}`, address), address, reply, 'this address');
      // Only an address with a failure being counted waits; onResponse below records the refusal before this resumes.
      const failuresBeingCounted = this.leases.afterLeaseInFlight(authFailuresBucket(client));
      if (failuresBeingCounted) await failuresBeingCounted;
      const blockedForMs = (this.failingAddresses.get(client) ?? 0) - Date.now();
      if (blockedForMs > 0)
        refuseWhenEmpty(
          { allowed: false, tokens: 1 - (blockedForMs / 1000) * authFailures.ratePerSecond },
          authFailures,
          reply,
          'this address after repeated authentication failures',
        );
    });
    fastify.addHook('onResponse', async (request: FastifyRequest, reply: FastifyReply) => {
      if (reply.statusCode !== 401 || !carriesCredential(request)) return;
      const client = addressBucketOf(clientAddressOf(request.raw, this.proxies));
      const answer = await this.leases.take(authFailuresBucket(client), authFailures);
      if (!answer.allowed) this.blockAddress(client, ((1 - answer.tokens) / answer.policy.ratePerSecond) * 1000);
    });
  }

  /** Remembered in this replica only, bounded: expired entries go first, and past the bound the oldest. */
  private blockAddress(client: string, forMs: number): void {
    const now = Date.now();
    if (this.failingAddresses.size >= FAILING_ADDRESSES_MAX) {
      for (const [address, until] of this.failingAddresses) if (until <= now) this.failingAddresses.delete(address);
      const oldest = this.failingAddresses.keys().next();
      if (this.failingAddresses.size >= FAILING_ADDRESSES_MAX && !oldest.done) this.failingAddresses.delete(oldest.value);
    }
    this.failingAddresses.delete(client);
    this.failingAddresses.set(client, now + forMs);
  }
}

/** Runs after the guards: charges the merchant the signature guard authenticated; other routes pass. */
@Injectable()
export class MerchantRateLimitInterceptor implements NestInterceptor {
  constructor(@Inject(RateLimiter) private readonly limiter: RateLimiter) {}

  async intercept(context: ExecutionContext, next: CallHandler): Promise<Observable<unknown>> {
    const merchant = context.switchToHttp().getRequest<GatewayRequest>().merchant;
    if (merchant) await this.limiter.chargeMerchant(merchant.merchantId, context.switchToHttp().getResponse<FastifyReply>());
    return next.handle();
  }
}

export interface MerchantRateLimitView {
  merchant_id: string;
  rate_per_second: number;
  burst: number;
  source: 'default' | 'override';
  updated_at: string | null;
  updated_by: string | null;
}

const merchantBucket = (merchantId: string) => `merchant:${merchantId}`;
const authFailuresBucket = (client: string) => `auth-failures:${client}`;

function carriesCredential(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  return route !== undefined && CREDENTIAL_ROUTE_PREFIXES.some((prefix) => route.startsWith(prefix));
}

/** Sets the RateLimit-* headers (on successes too) and refuses with 429 RATE_LIMITED when the bucket had no token. */
function refuseWhenEmpty(answer: BucketAnswer, policy: BucketPolicy, reply: FastifyReply, whose: string): void {
  const headers = rateLimitHeaders(policy, answer);
  void reply.headers(headers);
  if (answer.allowed) return;
  throw new DomainError('RATE_LIMITED', `Too many requests from ${whose}: retry after ${headers['retry-after']} s`, [], {
    limit: { burst: policy.burst, rate_per_second: policy.ratePerSecond },
  });
}
