import { Logger } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import type { BucketAnswer, BucketPolicy } from './token-bucket';

/**
 * The refill, computed by PostgreSQL under the row lock: the tokens left plus the elapsed time's
 * refill, capped at the burst. clock_timestamp() (not now()) so a request that waited for the
 * lock refills up to the moment it holds it; GREATEST keeps the clock from running backwards
 * when a request that started earlier commits later.
 */
const LEVEL = `LEAST($3::float8, bucket.tokens + GREATEST(0, EXTRACT(EPOCH FROM clock_timestamp() - bucket.refilled_at)) * $2::float8)`;

/** Takes one token: one statement, no read-modify-write, atomic per row across replicas. */
const TAKE = `
  INSERT INTO gateway_rate_limit_buckets AS bucket (bucket_key, tokens, refilled_at, last_taken)
  VALUES ($1, $3::float8 - 1, clock_timestamp(), true)
  ON CONFLICT (bucket_key) DO UPDATE SET
    tokens = CASE WHEN ${LEVEL} >= 1 THEN ${LEVEL} - 1 ELSE ${LEVEL} END,
    refilled_at = GREATEST(bucket.refilled_at, clock_timestamp()),
    last_taken = ${LEVEL} >= 1
  RETURNING tokens, last_taken`;

/** Reads a bucket's level without taking anything (authentication failures are charged afterwards). */
const PEEK = `SELECT ${LEVEL} AS tokens FROM gateway_rate_limit_buckets AS bucket WHERE bucket_key = $1`;

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

  async take(key: string, policy: BucketPolicy): Promise<BucketAnswer> {
    try {
      const rows = (await this.dataSource.query(TAKE, [key, policy.ratePerSecond, policy.burst])) as Array<{ tokens: number; last_taken: boolean }>;
      return { allowed: rows[0].last_taken, tokens: Number(rows[0].tokens) };
    } catch (error) {
      this.logFailure(error);
      return { allowed: true, tokens: policy.burst };
    }
  }

  async peek(key: string, policy: BucketPolicy): Promise<BucketAnswer> {
    try {
      const rows = (await this.dataSource.query(PEEK, [key, policy.ratePerSecond, policy.burst])) as Array<{ tokens: number }>;
      const tokens = rows.length === 0 ? policy.burst : Number(rows[0].tokens);
      return { allowed: tokens >= 1, tokens };
    } catch (error) {
      this.logFailure(error);
      return { allowed: true, tokens: policy.burst };
    }
  }

  /** Deletes buckets idle long enough to be full: they are equivalent to no row. */
  async sweepIdle(idleSeconds: number): Promise<void> {
    try {
      await this.dataSource.query(`DELETE FROM gateway_rate_limit_buckets WHERE refilled_at < clock_timestamp() - make_interval(secs => $1)`, [idleSeconds]);
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
