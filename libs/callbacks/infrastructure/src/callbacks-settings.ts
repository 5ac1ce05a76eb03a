import type { EndpointDisablingPolicy, RetrySchedule } from '@mp/callbacks-domain';
import type { CallbackDestinationRules } from '@mp/contracts-callbacks';

/** What the callbacks module needs from its app's validated config. */
export interface CallbacksSettings {
  /** Names this replica's leases. */
  instanceId: string;
  topicPartitions: number;
  retrySchedule: RetrySchedule;
  /** Every attempt is abandoned after this long (connect + answer). */
  attemptTimeoutMs: number;
  /**
   * Attempts in flight per destination origin (scheme, host, port) across all replicas, so a slow
   * or dead receiver holds back only the callbacks to it.
   */
  perOriginConcurrency: number;
  /** Consecutive failures (timeouts, network errors, 429, 5xx) of an origin that open its circuit. */
  circuitFailureThreshold: number;
  /** How long an open circuit sends nothing to its origin before one probe is let through. */
  circuitCooldownMs: number;
  /**
   * When an endpoint that keeps failing is disabled like one that answered 410 (its callbacks
   * parked until re-enabled): CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES and _MINUTES.
   */
  endpointDisabling: EndpointDisablingPolicy;
  /** Attempts in flight in this replica. */
  totalConcurrency: number;
  pollIntervalMs: number;
  /** A claimed delivery whose replica died is claimed again after this long. */
  leaseMs: number;
  /** IPs or CIDRs the SSRF guard lets through although private (operators' allow-list). */
  allowedDestinations: string[];
  /** ALLOW_HTTP_CALLBACK_URLS (development and tests only) and CALLBACK_ALLOWED_PORTS, as the gateway applies them. */
  destinationRules: CallbackDestinationRules;
  /** The gateway's internal listener; the dispatcher authenticates with its own service token (SERVICE_TOKEN_PRIVATE_KEY). */
  gatewayInternalUrl: string;
  /** How long a merchant's webhook profile (secrets) is cached. */
  profileCacheTtlMs: number;
  testClockEnabled: boolean;
}

export const CALLBACKS_SETTINGS = Symbol('CALLBACKS_SETTINGS');

/** The dispatcher's clock port: scheduling and signatures read it, so tests can move time. */
export { CLOCK, OffsetClock, type Clock } from '@mp/shared-util-clock';
