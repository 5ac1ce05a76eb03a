import type { LeaseGrant, LeaseSizing } from './rate-limit.store';
import type { BucketAnswer, BucketPolicy } from './token-bucket';

/**
 * A replica's leases on the shared token buckets (issue 21). Taking a token from PostgreSQL on
 * every request made every read a write transaction and doubled a status read's cost, so a
 * replica takes a block of tokens (a lease) in one statement when its own run out, and spends
 * them from memory.
 *
 * THE BOUND. Every token a replica spends came out of the shared bucket, which never hands out
 * more than `rate × T + burst` over T seconds. Leasing only moves the moment a token leaves the
 * bucket earlier than the request that spends it, so over any window of T seconds at most
 *
 *     rate × T + burst + replicas × (lease size − 1)
 *
 * requests are admitted: the extra term is the tokens leased before the window and spent in
 * it. From a full bucket (a merchant's first burst) the bound is exact, with no slack. The lease
 * size is a tenth of the smaller of rate and burst, at least 1 and at most 100 (`leaseSizeOf`):
 * the defaults (100/s, burst 200) lease 10, so three replicas admit at most 27 more than the
 * bucket over a window, and a merchant at 5/s or a burst under 20 leases 1: exact, one
 * statement per request, as before. A block of 100 already spreads a statement over 100
 * requests; a larger one would only widen the slack.
 *
 * What a replica keeps, per bucket: the whole tokens leased and not spent, forgotten after
 * LEASE_LIFETIME_MS (never given back: a forgotten token errs on the strict side, and the bucket
 * refills); and, when the bucket was found empty, the moment its next token is due, before which
 * the replica refuses from memory (a flood over the limit costs no statements either). An
 * operator's override reaches a replica at its next lease: within a lease's lifetime.
 *
 * Requests that find no token while a lease is in flight wait for it and, if it does not cover
 * them, go together in the next statement, which asks for all of them at once: one statement
 * in flight per bucket and replica, so a burst costs a few round trips, not one each.
 */
export const LEASE_SIZING: LeaseSizing = { fraction: 0.1, max: 100 };

/** Leftover leased tokens are forgotten after this, so an override or a quiet merchant's tokens do not linger. */
export const LEASE_LIFETIME_MS = 1_000;

/** Buckets remembered at once (merchants and client addresses); past it, expired ones go first, then the oldest. */
const LEASED_BUCKETS_MAX = 100_000;

/**
 * The lease size of a bucket's figures. The lease statement computes the same in SQL from the
 * figures in force there (an operator's override is only known in that statement); this names
 * the rule for the specs and the benchmark.
 */
export function leaseSizeOf(policy: BucketPolicy, sizing: LeaseSizing = LEASE_SIZING): number {
  return Math.max(1, Math.min(sizing.max, Math.floor(Math.min(policy.ratePerSecond, policy.burst) * sizing.fraction)));
}

/** The store's one operation a lease needs (RateLimitStore). */
export interface LeaseSource {
  lease(key: string, policy: BucketPolicy, ask: number, sizing: LeaseSizing): Promise<LeaseGrant>;
}

export type LeasedAnswer = BucketAnswer & { policy: BucketPolicy };

interface LeaseState {
  /** Whole tokens leased and not yet spent by this replica. */
  tokens: number;
  /** The shared bucket's level after the last lease: with `tokens`, what RateLimit-Remaining reports. */
  sharedTokens: number;
  /** The figures in force at the last lease (an override or the global ones). */
  policy: BucketPolicy;
  /** Leftover tokens and a remembered refusal hold until then. */
  expiresAtMs: number;
  /** When the last lease found the bucket empty: the moment its next token is due. */
  nextTokenAtMs: number | null;
  /** Requests waiting for the lease in flight; null when none is. */
  waiting: Array<(answer: LeasedAnswer) => void> | null;
  /** Callers of `afterLeaseInFlight`: told once no lease is in flight any more, after every waiting request was answered. */
  watching: Array<() => void>;
}

export class BucketLeases {
  private readonly states = new Map<string, LeaseState>();

  constructor(
    private readonly source: LeaseSource,
    private readonly clock: () => number = Date.now,
    private readonly sizing: LeaseSizing = LEASE_SIZING,
  ) {}

  /** Takes a token from `key`'s bucket: from this replica's lease when it holds one, else by leasing. */
  take(key: string, policy: BucketPolicy): Promise<LeasedAnswer> {
    const state = this.states.get(key) ?? this.remember(key, policy);
    if (state.waiting) return new Promise((resolve) => state.waiting?.push(resolve));
    const local = this.fromMemory(state);
    if (local) return Promise.resolve(local);
    return new Promise((resolve) => {
      state.waiting = [resolve];
      void this.leaseFor(key, state, policy);
    });
  }

  /**
   * Resolves once the lease in flight for `key` has answered every request waiting for it, and
   * what those requests' callers do with their answers has run first (they were resolved
   * earlier); null when no lease is in flight. Takes no token. A caller that must see a refusal
   * before it admits the next request (the address's authentication failures, counted after
   * the response) waits here instead of racing the statement.
   */
  afterLeaseInFlight(key: string): Promise<void> | null {
    const state = this.states.get(key);
    if (!state?.waiting) return null;
    return new Promise((resolve) => state.watching.push(resolve));
  }

  /** Forgets expired leases (called by the rate limiter's periodic sweep). */
  forgetExpired(): void {
    const now = this.clock();
    for (const [key, state] of this.states) if (!state.waiting && state.expiresAtMs <= now) this.states.delete(key);
  }

  /** An answer from what this replica holds, or null when only a lease can tell. */
  private fromMemory(state: LeaseState): LeasedAnswer | null {
    const now = this.clock();
    if (now >= state.expiresAtMs) return null;
    if (state.tokens >= 1) {
      state.tokens -= 1;
      return { allowed: true, tokens: state.sharedTokens + state.tokens, policy: state.policy };
    }
    if (state.nextTokenAtMs !== null && now < state.nextTokenAtMs) {
      return { allowed: false, tokens: 1 - ((state.nextTokenAtMs - now) / 1000) * state.policy.ratePerSecond, policy: state.policy };
    }
    return null;
  }

  /** Leases for the waiting requests until none is left: those a lease does not cover go in the next one. */
  private async leaseFor(key: string, state: LeaseState, policy: BucketPolicy): Promise<void> {
    while (state.waiting && state.waiting.length > 0) {
      const batch = state.waiting;
      state.waiting = [];
      let grant: LeaseGrant;
      try {
        grant = await this.source.lease(key, policy, batch.length, this.sizing);
      } catch {
        // The store answers its own failures (it lets requests through); this only keeps a bug there from leaving requests waiting forever.
        grant = { granted: batch.length, tokens: policy.burst, policy };
      }
      this.record(state, grant, batch.length);
      for (const resolve of batch) resolve(this.fromMemory(state) ?? refusal(state));
      // Those that arrived meanwhile: served from the new lease if it covers them, else in the next statement.
      const stillWaiting: Array<(answer: LeasedAnswer) => void> = [];
      for (const resolve of state.waiting) {
        const local = this.fromMemory(state);
        if (local) resolve(local);
        else stillWaiting.push(resolve);
      }
      state.waiting = stillWaiting;
    }
    state.waiting = null;
    const watching = state.watching.splice(0);
    for (const resolve of watching) resolve();
  }

  private record(state: LeaseState, grant: LeaseGrant, asked: number): void {
    const now = this.clock();
    state.tokens = grant.granted;
    state.sharedTokens = grant.tokens;
    state.policy = grant.policy;
    state.expiresAtMs = now + LEASE_LIFETIME_MS;
    state.nextTokenAtMs = grant.granted < asked ? now + ((1 - grant.tokens) / grant.policy.ratePerSecond) * 1000 : null;
  }

  private remember(key: string, policy: BucketPolicy): LeaseState {
    if (this.states.size >= LEASED_BUCKETS_MAX) {
      this.forgetExpired();
      for (const [oldest, state] of this.states) {
        if (this.states.size < LEASED_BUCKETS_MAX) break;
        if (!state.waiting) this.states.delete(oldest);
      }
    }
    const state: LeaseState = { tokens: 0, sharedTokens: 0, policy, expiresAtMs: 0, nextTokenAtMs: null, waiting: null, watching: [] };
    this.states.set(key, state);
    return state;
  }
}

/** A request the last lease did not cover: the bucket had no whole token left for it (below 1, whatever a clock edge says). */
function refusal(state: LeaseState): LeasedAnswer {
  return { allowed: false, tokens: Math.min(state.sharedTokens, 0.999), policy: state.policy };
}
