import type { TransportResult } from './attempt-outcome';

/**
 * What an attempt says about its destination origin (scheme, host and port), for the circuit
 * breaker: `up` when it answered at all below 500 (a 4xx is the receiving application's
 * business, the origin is reachable), `down` on timeouts, network errors (DNS included), 429
 * and 5xx; null when nothing was sent (the SSRF guard refused the address), which says nothing
 * about the origin's health.
 */
export function originHealthOf(result: TransportResult): 'up' | 'down' | null {
  if (result.kind === 'refused_destination') return null;
  if (result.kind !== 'response') return 'down';
  return result.status >= 500 || result.status === 429 ? 'down' : 'up';
}

export interface CircuitBreakerPolicy {
  /** Consecutive failures of an origin that open its circuit. */
  failureThreshold: number;
  /** How long an open circuit sends nothing; then one probe at a time is let through (half-open). */
  cooldownMs: number;
}
