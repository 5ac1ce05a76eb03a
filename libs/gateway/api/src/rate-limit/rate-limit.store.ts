import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { BucketPolicy } from './token-bucket';

/**
 * The bucket's level at this statement's moment: the tokens left plus the elapsed time's refill,
 * capped at the burst. The moment is EXCLUDED.refilled_at, the clock_timestamp() read once when
 * the row to insert was built, so every use of it in the statement agrees (clock_timestamp() is
 * volatile: written out three times it would be read three times). A request that then waited
 * for the row lock refills up to a moment a little before it holds it, which only refills less;
 * GREATEST keeps the clock from running backwards when a request that started earlier commits
 * later. `policy` is the operator's override of the bucket when there is one, else the global
 * figures ($2, $3): read in the same statement.
 */
const LEVEL = `LEAST(EXCLUDED.burst, bucket.tokens + GREATEST(0, EXTRACT(EPOCH FROM EXCLUDED.refilled_at - bucket.refilled_at)) * EXCLUDED.rate_per_second)`;

/** The whole tokens granted: as many as asked (EXCLUDED.last_granted carries the ask), at most the whole tokens the bucket holds. */
const GRANTED = `LEAST(EXCLUDED.last_granted, FLOOR(${LEVEL}))::int`;

/**
 * Leases up to `ask` tokens: one statement, no read-modify-write, atomic per row across
 * replicas. The ask is max($4, the lease size of the figures in force), the lease size being a
 * fraction ($5) of the smaller of rate and burst, at least 1 and at most $6 (bucket-lease.ts), so
 * an override changes the lease size in the same statement that reads it.
 */
const LEASE = `
  INSERT INTO gateway_rate_limit_buckets AS bucket (bucket_key, tokens, refilled_at, last_taken, last_granted, rate_per_second, burst)
  SELECT $1, policy.burst - ask.tokens, clock_timestamp(), true, ask.tokens, policy.rate_per_second, policy.burst
  FROM (SELECT COALESCE(o.rate_per_second, $2::float8) AS rate_per_second, COALESCE(o.burst, $3::float8) AS burst
        FROM (SELECT 1) AS global LEFT JOIN gateway_rate_limit_overrides AS o ON o.bucket_key = $1) AS policy,
  LATERAL (SELECT LEAST(FLOOR(policy.burst), GREATEST($4::int, 1, LEAST($6::int, FLOOR(LEAST(policy.rate_per_second, policy.burst) * $5::float8))))::int AS tokens) AS ask
  ON CONFLICT (bucket_key) DO UPDATE SET
    tokens = ${LEVEL} - ${GRANTED},
    refilled_at = GREATEST(bucket.refilled_at, EXCLUDED.refilled_at),
    last_taken = ${GRANTED} >= 1,
    last_granted = ${GRANTED},
    rate_per_second = EXCLUDED.rate_per_second,
    burst = EXCLUDED.burst
  RETURNING tokens, last_granted, rate_per_second, burst`;

/** How big a lease is: `fraction` of min(rate, burst) tokens, at least 1 and at most `max` (bucket-lease.ts says why). */
export interface LeaseSizing {
  fraction: number;
  max: number;
}

/** What one lease statement answered: the tokens granted (0: the bucket is empty), the bucket's level after, and the figures in force. */
export interface LeaseGrant {
  granted: number;
  tokens: number;
  policy: BucketPolicy;
}

/**
 * Token buckets in the gateway's PostgreSQL, shared by all replicas (there is no Redis in the
 * stack, and process memory would give each replica its own limit). Hand-written rather than
 * @fastify/rate-limit: that plugin counts fixed windows in memory or Redis, neither of which
 * fits. Replicas lease tokens in blocks through it (bucket-lease.ts), one statement per lease.
 *
 * A store failure lets the request through (logged, at most once a minute): the limit protects
 * capacity, and refusing every request while the database hiccups would be the outage it guards
 * against. Authentication itself still needs the database.
 */
export class RateLimitStore {
  private readonly logger = new Logger('RateLimit');
  private lastFailureLogMs = 0;

  constructor(private readonly dataSource: DataSource) {}

  /**
   * Takes up to max(`ask`, the lease size) tokens from `key`'s bucket: `policy` unless an
   * operator set an override for the key. When the store fails, grants `ask` (and no more) so
   * the requests pass, and the next ones ask again.
   */
  async lease(key: string, policy: BucketPolicy, ask: number, sizing: LeaseSizing): Promise<LeaseGrant> {
    try {
      const rows = (await this.dataSource.query(LEASE, [key, policy.ratePerSecond, policy.burst, ask, sizing.fraction, sizing.max])) as Array<{
        tokens: number;
        last_granted: number;
        rate_per_second: number;
        burst: number;
      }>;
      const [row] = rows;
      return {
        granted: Number(row.last_granted),
        tokens: Number(row.tokens),
        policy: { ratePerSecond: Number(row.rate_per_second), burst: Number(row.burst) },
      };
    } catch (error) {
      this.logFailure(error);
      return { granted: ask, tokens: policy.burst, policy };
    }
  }

  async overrideOf(key: string): Promise<(BucketPolicy & { updatedAt: Date; updatedBy: string }) | null> {
    const rows = (await this.dataSource.query('SELECT rate_per_second, burst, updated_at, updated_by FROM gateway_rate_limit_overrides WHERE bucket_key = $1', [
      key,
    ])) as Array<{
      rate_per_second: number;
      burst: number;
      updated_at: Date;
      updated_by: string;
    }>;
    const [row] = rows;
    return row ? { ratePerSecond: Number(row.rate_per_second), burst: Number(row.burst), updatedAt: row.updated_at, updatedBy: row.updated_by } : null;
  }

  /** Sets (or, with null, removes) an operator's override; the next request of the bucket uses it. */
  async setOverride(key: string, policy: BucketPolicy | null, actor: string): Promise<void> {
    if (policy === null) {
      await this.dataSource.query('DELETE FROM gateway_rate_limit_overrides WHERE bucket_key = $1', [key]);
      return;
    }
    await this.dataSource.query(
      `INSERT INTO gateway_rate_limit_overrides (bucket_key, rate_per_second, burst, updated_at, updated_by) VALUES ($1, $2, $3, now(), $4)
       ON CONFLICT (bucket_key) DO UPDATE SET rate_per_second = EXCLUDED.rate_per_second, burst = EXCLUDED.burst, updated_at = EXCLUDED.updated_at, updated_by = EXCLUDED.updated_by`,
      [key, policy.ratePerSecond, policy.burst, actor],
    );
  }

  /** Deletes buckets idle long enough to be full (by their own figures): they are equivalent to no row. */
  async sweepIdle(): Promise<void> {
    try {
      await this.dataSource.query(
        `DELETE FROM gateway_rate_limit_buckets WHERE refilled_at + make_interval(secs => burst / rate_per_second + 1) < clock_timestamp()`,
      );
    } catch (error) {
      this.logFailure(error);
    }
  }

  private logFailure(error: unknown): void {
    if (Date.now() - this.lastFailureLogMs < 60_000) return;
    this.lastFailureLogMs = Date.now();
    this.logger.warn(`rate-limit store unavailable, requests pass unlimited: ${error instanceof Error ? error.message : String(error)}`);
  }
}
