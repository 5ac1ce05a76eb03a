/**
 * A token-bucket policy: `burst` tokens at most, refilled at `ratePerSecond`; a request takes one.
 * Over a window of T seconds a bucket admits at most `ratePerSecond * T + burst` requests.
 */
export interface BucketPolicy {
  ratePerSecond: number;
  burst: number;
}

/** A bucket's state after a request took (or failed to take) a token. */
export interface BucketAnswer {
  allowed: boolean;
  /** Tokens left after this request, fractional. */
  tokens: number;
}

/** The rate limits the gateway enforces (GATEWAY_RATE_LIMIT_*), documented in docs/operations/configuration.md and docs/api/errors.md. */
export interface RateLimitSettings {
  /** Per merchant, charged after the signature is verified. */
  merchant: BucketPolicy;
  /** Per client address, on routes that carry no credential (the payer page, health, docs). */
  address: BucketPolicy;
  /** Per client address, charged by each 401 on /v2 and /backoffice/v1; an empty bucket refuses the address there. */
  authFailures: BucketPolicy;
}

export const DEFAULT_RATE_LIMITS: RateLimitSettings = {
  merchant: { ratePerSecond: 100, burst: 200 },
  address: { ratePerSecond: 20, burst: 100 },
  authFailures: { ratePerSecond: 2, burst: 60 },
};

/**
 * The IETF draft's headers (draft-ietf-httpapi-ratelimit-headers): the bucket's size, the whole
 * tokens left, and the seconds until it is full again; on a refusal also `Retry-After`, the
 * seconds until one token is back.
 */
export function rateLimitHeaders(policy: BucketPolicy, answer: BucketAnswer): Record<string, string> {
  const tokens = Math.max(0, answer.tokens);
  const headers: Record<string, string> = {
    'ratelimit-limit': String(policy.burst),
    'ratelimit-remaining': String(Math.floor(tokens)),
    'ratelimit-reset': String(Math.ceil((policy.burst - tokens) / policy.ratePerSecond)),
  };
  if (!answer.allowed) headers['retry-after'] = String(Math.max(1, Math.ceil((1 - tokens) / policy.ratePerSecond)));
  return headers;
}
