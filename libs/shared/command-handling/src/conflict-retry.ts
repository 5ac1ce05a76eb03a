import { StreamVersionConflictError } from '@mp/shared-messaging';
import { backOff } from 'exponential-backoff';

/**
 * How often a unit of work that lost an optimistic-concurrency race is run again. A conflict
 * means another writer appended to the same stream first; re-reading and deciding again
 * resolves it, so only conflicts are retried, a bounded number of times, with a growing,
 * jittered pause so racing writers do not collide again in lockstep.
 */
export interface ConflictRetryPolicy {
  /** Runs in all, the first included. */
  attempts: number;
  /** The pause before the second run; doubled for each later one. */
  firstDelayMs: number;
  maxDelayMs: number;
}

/** emmett's default (3 retries, growing from 100 ms) scaled to our short transactions. */
export const DEFAULT_CONFLICT_RETRY_POLICY: ConflictRetryPolicy = { attempts: 4, firstDelayMs: 20, maxDelayMs: 250 };

/**
 * Runs `work` (a whole transaction) again on a stream version conflict, by the policy, and on any
 * other error `alsoRetry` accepts (a deadlock victim, say, for work no partition pause retries).
 */
export function retryOnConflict<T>(policy: ConflictRetryPolicy, work: () => Promise<T>, alsoRetry: (error: unknown) => boolean = () => false): Promise<T> {
  return backOff(work, {
    numOfAttempts: policy.attempts,
    startingDelay: policy.firstDelayMs,
    maxDelay: policy.maxDelayMs,
    timeMultiple: 2,
    jitter: 'full',
    retry: (error: unknown) => error instanceof StreamVersionConflictError || alsoRetry(error),
  });
}
