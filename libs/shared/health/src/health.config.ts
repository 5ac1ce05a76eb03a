import type { ConfigReader } from '@mp/shared-util-config';

export interface HealthConfig {
  /** From SIGTERM to exit: readiness off, requests and in-flight messages finished, connections closed. */
  shutdownGraceMs: number;
  /** Consumer lag (messages, per group) above which the service is not ready; 0 only reports it. */
  consumerLagMax: number;
  /** How long one readiness dependency check may take before it counts as down. */
  healthCheckTimeoutMs: number;
}

/** The probe and shutdown settings every service shares (validated at boot with the rest). */
export function readHealthConfig(reader: ConfigReader): HealthConfig {
  return {
    shutdownGraceMs: reader.integer('SHUTDOWN_GRACE_MS', {
      default: 10_000,
      min: 1_000,
      max: 600_000,
      description: 'from SIGTERM to exit: past it the process exits 1 with work unfinished',
    }),
    consumerLagMax: reader.integer('HEALTH_CONSUMER_LAG_MAX', {
      default: 10_000,
      min: 0,
      max: 100_000_000,
      description: 'consumer lag (messages, per group) above which `/health/ready` answers 503; `0`: lag is only reported',
    }),
    healthCheckTimeoutMs: reader.integer('HEALTH_CHECK_TIMEOUT_MS', {
      default: 2_000,
      min: 100,
      max: 60_000,
      description: 'how long one readiness check (database, Kafka) may take before it counts as down',
    }),
  };
}
