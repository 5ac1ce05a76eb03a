import { randomBytes } from 'node:crypto';
import { readServiceAuthConfig, type ServiceAuthConfig, type ServiceName } from '@mp/shared-service-auth';
import { DEFAULT_ENDPOINT_DISABLING, DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from '@mp/callbacks-domain';
import { DestinationGuard, type CallbacksSettings, CALLBACKS_INTERNAL_ACCESS } from '@mp/callbacks-infrastructure';
import { readCallbackAllowedPorts } from '@mp/contracts-callbacks';
import { ConfigReader, readInternalTlsConfig, readKafkaConnectionConfig, readLogFormat, type Environment, type InternalTlsConfig, type KafkaConnectionConfig, type LogFormat } from '@mp/shared-util-config';
import { readHealthConfig, type HealthConfig } from '@mp/shared-health';

/** The callbacks module's settings (topic partitions come from the Kafka config) plus the app's own. */
export interface CallbackDispatcherConfig extends KafkaConnectionConfig, HealthConfig, InternalTlsConfig, Omit<CallbacksSettings, 'topicPartitions'> {
  /** This service's signing key and its callers' public keys (service-to-service authentication, always on). */
  serviceAuth: ServiceAuthConfig;
  httpHost: string;
  httpPort: number;
  databaseUrl: string;
  databasePoolMax: number;
  logFormat: LogFormat;
}

/** Reads and validates the dispatcher's environment once, at boot. */
export function loadCallbackDispatcherConfig(environment: Environment): CallbackDispatcherConfig {
  const reader = new ConfigReader(environment);
  const scheduleText = reader.string('CALLBACK_RETRY_SCHEDULE', { default: DEFAULT_RETRY_SCHEDULE });
  let retrySchedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
  try {
    retrySchedule = parseRetrySchedule(scheduleText);
  } catch (error) {
    reader.problem(`CALLBACK_RETRY_SCHEDULE: ${(error as Error).message}`);
  }
  const allowedDestinations = reader.list('CALLBACK_ALLOWED_DESTINATIONS', { default: '' });
  try {
    new DestinationGuard(allowedDestinations);
  } catch (error) {
    reader.problem(`CALLBACK_ALLOWED_DESTINATIONS must list IPs or CIDRs: ${(error as Error).message}`);
  }
  const attemptTimeoutMs = reader.integer('CALLBACK_ATTEMPT_TIMEOUT_MS', { default: 15_000, min: 100, max: 60_000 });
  const config: CallbackDispatcherConfig = {
    httpHost: reader.string('CALLBACKS_HTTP_HOST', { default: '127.0.0.1' }),
    httpPort: reader.integer('CALLBACKS_HTTP_PORT', { default: 3005, min: 0, max: 65535 }),
    databaseUrl: reader.url('CALLBACKS_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'] }),
    databasePoolMax: reader.integer('CALLBACKS_DATABASE_POOL_MAX', { default: 10, min: 1, max: 200 }),
    instanceId: reader.string('CALLBACKS_INSTANCE_ID', { default: `cb-${randomBytes(6).toString('hex')}`, pattern: /^[A-Za-z0-9._-]{1,100}$/ }),
    retrySchedule,
    attemptTimeoutMs,
    perOriginConcurrency: reader.integer('CALLBACK_PER_ORIGIN_CONCURRENCY', { default: 4, min: 1, max: 100 }),
    circuitFailureThreshold: reader.integer('CALLBACK_CIRCUIT_FAILURE_THRESHOLD', { default: 5, min: 1, max: 1_000 }),
    circuitCooldownMs: reader.integer('CALLBACK_CIRCUIT_COOLDOWN_MS', { default: 30_000, min: 100, max: 3_600_000 }),
    endpointDisabling: {
      failureThreshold: reader.integer('CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES', { default: DEFAULT_ENDPOINT_DISABLING.failureThreshold, min: 1, max: 100_000 }),
      minimumDurationMs: reader.integer('CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES', { default: DEFAULT_ENDPOINT_DISABLING.minimumDurationMinutes, min: 0, max: 43_200 }) * 60_000,
    },
    totalConcurrency: reader.integer('CALLBACK_TOTAL_CONCURRENCY', { default: 64, min: 1, max: 1_000 }),
    pollIntervalMs: reader.integer('CALLBACK_POLL_INTERVAL_MS', { default: 1_000, min: 50, max: 60_000 }),
    // Longer than any attempt can take, so a live replica never loses a claim mid-attempt.
    leaseMs: reader.integer('CALLBACK_LEASE_MS', { default: Math.max(60_000, attemptTimeoutMs * 4), min: attemptTimeoutMs * 2, max: 3_600_000 }),
    allowedDestinations,
    destinationRules: { allowHttp: reader.boolean('ALLOW_HTTP_CALLBACK_URLS', false), allowedPorts: readCallbackAllowedPorts(reader) },
    gatewayInternalUrl: reader.url('GATEWAY_INTERNAL_URL', { default: 'http://127.0.0.1:3010' }),
    profileCacheTtlMs: reader.integer('CALLBACK_PROFILE_CACHE_TTL_MS', { default: 30_000, min: 0, max: 3_600_000 }),
    testClockEnabled: reader.boolean('TEST_CLOCK_ENABLED', false),
    logFormat: readLogFormat(reader),
    ...readKafkaConnectionConfig(reader),
    ...readHealthConfig(reader),
    ...readInternalTlsConfig(reader),
    serviceAuth: readServiceAuthConfig(reader, 'callbacks', Object.keys(CALLBACKS_INTERNAL_ACCESS) as ServiceName[]),
  };
  reader.assertValid();
  return config;
}
