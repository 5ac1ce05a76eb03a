import type { CallbackAttemptOutcome } from '@mp/contracts-callbacks';

/** What happened on the wire for one attempt. */
export type TransportResult =
  | { kind: 'response'; status: number }
  | { kind: 'timeout' }
  | { kind: 'network_error' }
  /** The SSRF guard refused the address the host resolved to (or the literal IP). */
  | { kind: 'refused_destination' };

export interface AttemptVerdict {
  outcome: Exclude<CallbackAttemptOutcome, 'in_flight'>;
  /** succeeded: done; retry: per the schedule; disable_endpoint: 410, stop and park. */
  next: 'done' | 'retry' | 'disable_endpoint';
}

/**
 * Standard Webhooks' response rules: only 2xx is success; 3xx is a failure (redirects are
 * never followed, a redirect could point inwards); 410 Gone disables the endpoint; anything
 * else, timeouts and network errors are retried per the schedule.
 */
export function judgeAttempt(result: TransportResult): AttemptVerdict {
  if (result.kind !== 'response') return { outcome: result.kind, next: 'retry' };
  if (result.status >= 200 && result.status < 300) return { outcome: 'succeeded', next: 'done' };
  if (result.status === 410) return { outcome: 'gone', next: 'disable_endpoint' };
  if (result.status >= 300 && result.status < 400) return { outcome: 'redirect', next: 'retry' };
  return { outcome: 'http_error', next: 'retry' };
}
