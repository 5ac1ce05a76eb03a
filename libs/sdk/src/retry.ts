import { backOff } from 'exponential-backoff';
import { MerchantApiError } from './errors';

export interface RetryOptions {
  /** Attempts in all, the first included; 1 turns retrying off. Default 4. */
  attempts?: number;
  /** The delay before the first retry, doubled for each one after it (full jitter). Default 200 ms. */
  initialDelayMs?: number;
  /** The longest delay between attempts, a `Retry-After` included. Default 10 s. */
  maxDelayMs?: number;
}

/**
 * How safe it is to send a request again without knowing whether the first one arrived:
 * - `idempotent`: creates (one order per `order_id`, the same body again), reads, lists,
 *   cancels and settings: retried on 429, 503 and any network failure, timeouts included;
 * - `not-idempotent` (secret rotations, opening a dispute): retried only when the server
 *   certainly did nothing: a 429, or a connection that was never made.
 */
export type RetrySafety = 'idempotent' | 'not-idempotent';

/** A failure to get any answer: refused, reset or timed out. */
export class MerchantNetworkError extends Error {
  override readonly name = 'MerchantNetworkError';

  constructor(
    message: string,
    /** True when no connection was made, so the server cannot have seen the request. */
    readonly beforeSending: boolean,
    override readonly cause?: unknown,
  ) {
    super(message);
  }
}

const CONNECT_ERROR_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Wraps what fetch throws when there is no answer; anything else (a bug) is rethrown as it is. */
export function asNetworkError(error: unknown): MerchantNetworkError | null {
  // By name, not instanceof: fetch's errors may come from another realm (a test runner's sandbox).
  const { name, message } = (error ?? {}) as { name?: unknown; message?: unknown };
  if (name === 'TimeoutError' || name === 'AbortError') return new MerchantNetworkError(`no answer in time: ${String(message)}`, false, error);
  if (name === 'TypeError' && message === 'fetch failed') {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const code = cause?.code ?? '';
    return new MerchantNetworkError(`network error ${code}: ${cause?.message ?? message}`, CONNECT_ERROR_CODES.has(code), error);
  }
  return null;
}

/** Retry-After as seconds or an HTTP date, in milliseconds from now; null when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs = Date.now()): number | null {
  if (!header) return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1_000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, at - nowMs);
}

function isRetryable(error: unknown, safety: RetrySafety): boolean {
  if (error instanceof MerchantApiError) return error.status === 429 || (error.status === 503 && safety === 'idempotent');
  if (error instanceof MerchantNetworkError) return safety === 'idempotent' || error.beforeSending;
  return false;
}

/**
 * Runs `attempt` until it succeeds, fails in a way that is not worth retrying, or runs out of
 * attempts. exponential-backoff provides the doubling delays with full jitter; a `Retry-After`
 * (on the MerchantApiError's `retryAfterMs`) is waited out on top of that, so the server's
 * wish is always honoured.
 */
export async function withRetries<T>(attempt: () => Promise<T>, safety: RetrySafety, options: RetryOptions = {}): Promise<T> {
  const maxDelayMs = options.maxDelayMs ?? 10_000;
  return backOff(attempt, {
    numOfAttempts: Math.max(1, options.attempts ?? 4),
    startingDelay: options.initialDelayMs ?? 200,
    timeMultiple: 2,
    maxDelay: maxDelayMs,
    jitter: 'full',
    retry: async (error: unknown) => {
      if (!isRetryable(error, safety)) return false;
      const wait = error instanceof MerchantApiError ? error.retryAfterMs : null;
      if (wait) await new Promise((resolve) => setTimeout(resolve, Math.min(wait, maxDelayMs)));
      return true;
    },
  });
}
