import type { AttemptVerdict } from './attempt-outcome';

/**
 * When an endpoint (a merchant's callback URL) that keeps failing is disabled like one that
 * answered 410 Gone: after `failureThreshold` failed attempts in a row to it, across all of
 * the merchant's callbacks, the first of them at least `minimumDurationMs` ago. Both must hold,
 * so a burst of failures during a short outage never disables an endpoint (the retry schedule
 * covers that), and neither does a long outage seen by one lone callback's few attempts.
 */
export interface EndpointDisablingPolicy {
  failureThreshold: number;
  minimumDurationMs: number;
}

/** CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES and CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES by default (docs/operations/callbacks.md). */
export const DEFAULT_ENDPOINT_DISABLING = { failureThreshold: 20, minimumDurationMinutes: 1_440 } as const;

/** The endpoint's run of failures, as the dispatcher counts it (reset by any success). */
export interface EndpointFailureRun {
  consecutiveFailures: number;
  failingSince: Date;
}

/** How an attempt's verdict moves the endpoint's run: a success ends it, any retried or final failure extends it, a 410 disables anyway. */
export function endpointHealthOf(verdict: AttemptVerdict): 'up' | 'down' | null {
  if (verdict.next === 'done') return 'up';
  if (verdict.next === 'disable_endpoint') return null;
  return 'down';
}

/** Whether the run of failures disables the endpoint now. */
export function shouldDisableEndpoint(run: EndpointFailureRun, policy: EndpointDisablingPolicy, now: Date): boolean {
  return run.consecutiveFailures >= policy.failureThreshold && now.getTime() - run.failingSince.getTime() >= policy.minimumDurationMs;
}

/** The reason operators and merchants read in the disabled-endpoints lists. */
export function consecutiveFailuresReason(run: EndpointFailureRun): string {
  return `${run.consecutiveFailures} consecutive failed attempts since ${run.failingSince.toISOString()}`;
}
