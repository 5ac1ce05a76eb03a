import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { BucketAnswer, BucketPolicy } from './token-bucket';

/**
 * The refill, computed by PostgreSQL under the row lock: the tokens left plus the elapsed time's
 * refill, capped at the burst. clock_timestamp() (not now()) so a request that waited for the
 * lock refills up to the moment it holds it; GREATEST keeps the clock from running backwards
 * when a request that started earlier commits later. `policy` is the operator's override of the
 * bucket when there is one, else the global figures ($2, $3): read in the same statement.
 */
const LEVEL = `LEAST(EXCLUDED.burst, bucket.tokens + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - bucket.refilled_at)) * EXCLUDED.rate_per_second)`;

/** Takes one token: one statement, no read-modify-write, atomic per row across replicas. */
const TAKE = `
  INSERT INTO gateway_rate_limit_buckets AS bucket (bucket_key, tokens, refilled_at, last_taken, rate_per_second, burst)
  SELECT $1, policy.burst - 1, clock_timestamp(), true, policy.rate_per_second, policy.burst
  FROM (SELECT COALESCE(o.rate_per_second, $2::float8) AS rate_per_second, COALESCE(o.burst, $3::float8) AS burst
        FROM (SELECT 1) AS global LEFT JOIN gateway_rate_limit_overrides AS o ON o.bucket_key = $1) AS policy
  ON CONFLICT (bucket_key) DO UPDATE SET
    tokens = CASE WHEN ${LEVEL} >= 1 THEN ${LEVEL} - 1 ELSE ${LEVEL} END,
    refilled_at = GREATEST(bucket.refilled_at, clock_timestamp()),
    last_taken = ${LEVEL} >= 1,
    rate_per_second = EXCLUDED.rate_per_second,
    burst = EXCLUDED.burst
  RETURNING tokens, last_taken, rate_per_second, burst`;

/**
 * Token buckets in the gateway's PostgreSQL, shared by all replicas (there is no Redis in the
 * stack, and process memory would give each replica its own limit). Hand-written rather than
 * @fastify/rate-limit: that plugin counts fixed windows in memory or Redis, neither of which
 * fits. One statement per request; no local allowance, because tokens handed out in advance to a
 * replica would let N replicas admit up to N allowances more than the limit.
 *
 * A store failure lets the request through (logged, at most once a minute): the limit protects
 * capacity, and refusing every request while the database hiccups would be the outage it guards
 * against. Authentication itself still needs the database.
 */
export class RateLimitStore {
  private readonly logger = new Logger('RateLimit');
  private lastFailureLogMs = 0;

  constructor(private readonly dataSource: DataSource) {}

  /** Takes a token from `key`'s bucket: `policy` unless an operator set an override for the key. */
  async take(key: string, policy: BucketPolicy): Promise<BucketAnswer & { policy: BucketPolicy }> {
    try {
      const rows = (await this.dataSource.query(TAKE, [key, policy.ratePerSecond, policy.burst])) as Array<{ tokens: number; last_taken: boolean; rate_per_second: number; burst: number }>;
      const [row] = rows;
      return { allowed: row.last_taken, tokens: Number(row.tokens), policy: { ratePerSecond: Number(row.rate_per_second), burst: Number(row.burst) } };
    } catch (error) {
      this.logFailure(error);
      return { allowed: true, tokens: policy.burst, policy };
    }
  }

  async overrideOf(key: string): Promise<(BucketPolicy & { updatedAt: Date; updatedBy: string }) | null> {
    const rows = (await this.dataSource.query('SELECT rate_per_second, burst, updated_at, updated_by FROM gateway_rate_limit_overrides WHERE bucket_key = $1', [key])) as Array<{
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
      await this.dataSource.query(`DELETE FROM gateway_rate_limit_buckets WHERE refilled_at + make_interval(secs => burst / rate_per_second + 1) < clock_timestamp()`);
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
