import { readPreparedStatementsMax } from '@mp/shared-data-access-postgres';
import { randomBytes } from 'node:crypto';
import { readServiceAuthConfig, type ServiceAuthConfig, type ServiceName } from '@mp/shared-service-auth';
import { DEFAULT_ENDPOINT_DISABLING, DEFAULT_RETRY_SCHEDULE, parseRetrySchedule } from '@mp/callbacks-domain';
import { DestinationGuard, type CallbacksSettings, CALLBACKS_INTERNAL_ACCESS } from '@mp/callbacks-infrastructure';
import { readAllowHttpCallbackUrls, readCallbackAllowedPorts } from '@mp/contracts-callbacks';
import {
  ConfigReader,
  readInternalTlsConfig,
  readKafkaConnectionConfig,
  readLogFormat,
  readTestClockEnabled,
  type Environment,
  type InternalTlsConfig,
  type KafkaConnectionConfig,
  type LogFormat,
} from '@mp/shared-util-config';
import { readHealthConfig, type HealthConfig } from '@mp/shared-health';

/** The callbacks module's settings (topic partitions come from the Kafka config) plus the app's own. */
export interface CallbackDispatcherConfig extends KafkaConnectionConfig, HealthConfig, InternalTlsConfig, Omit<CallbacksSettings, 'topicPartitions'> {
  /** This service's signing key and its callers' public keys (service-to-service authentication, always on). */
  serviceAuth: ServiceAuthConfig;
  httpHost: string;
  httpPort: number;
  databaseUrl: string;
  databasePoolMax: number;
  databasePreparedStatementsMax: number;
  logFormat: LogFormat;
}

/** Reads and validates the dispatcher's environment once, at boot. */
export function loadCallbackDispatcherConfig(environment: Environment): CallbackDispatcherConfig {
  const reader = new ConfigReader(environment);
  const scheduleText = reader.string('CALLBACK_RETRY_SCHEDULE', { default: DEFAULT_RETRY_SCHEDULE, description: 'delay before each attempt (±20 % jitter)' });
  let retrySchedule = parseRetrySchedule(DEFAULT_RETRY_SCHEDULE);
  try {
    retrySchedule = parseRetrySchedule(scheduleText);
  } catch (error) {
    reader.problem(`CALLBACK_RETRY_SCHEDULE: ${(error as Error).message}`);
  }
  const allowedDestinations = reader.list('CALLBACK_ALLOWED_DESTINATIONS', {
    default: '',
    description: 'IPs/CIDRs allowed although private (SSRF allow-list)',
  });
  try {
    new DestinationGuard(allowedDestinations);
  } catch (error) {
    reader.problem(`CALLBACK_ALLOWED_DESTINATIONS must list IPs or CIDRs: ${(error as Error).message}`);
  }
  const attemptTimeoutMs = reader.integer('CALLBACK_ATTEMPT_TIMEOUT_MS', {
    default: 15_000,
    min: 100,
    max: 60_000,
    description: 'per-attempt deadline (connect, send, first bytes of the answer)',
  });
  const config: CallbackDispatcherConfig = {
    httpHost: reader.string('CALLBACKS_HTTP_HOST', { default: '127.0.0.1', description: 'internal API listen address' }),
    httpPort: reader.integer('CALLBACKS_HTTP_PORT', { default: 3005, min: 0, max: 65535, description: 'internal API port' }),
    databaseUrl: reader.url('CALLBACKS_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'], description: "the dispatcher's own database" }),
    databasePoolMax: reader.integer('CALLBACKS_DATABASE_POOL_MAX', { default: 10, min: 1, max: 200, description: 'connection pool size' }),
    databasePreparedStatementsMax: readPreparedStatementsMax(reader, 'CALLBACKS'),
    instanceId: reader.string('CALLBACKS_INSTANCE_ID', {
      default: `cb-${randomBytes(6).toString('hex')}`,
      pattern: /^[A-Za-z0-9._-]{1,100}$/,
      description: "names the replica's leases",
      defaultText: 'random (`cb-` and 12 hex digits)',
    }),
    retrySchedule,
    attemptTimeoutMs,
    perOriginConcurrency: reader.integer('CALLBACK_PER_ORIGIN_CONCURRENCY', {
      default: 4,
      min: 1,
      max: 100,
      description: 'attempts in flight per destination origin, across all replicas',
    }),
    circuitFailureThreshold: reader.integer('CALLBACK_CIRCUIT_FAILURE_THRESHOLD', {
      default: 5,
      min: 1,
      max: 1_000,
      description: 'consecutive failures of an origin that open its circuit',
    }),
    circuitCooldownMs: reader.integer('CALLBACK_CIRCUIT_COOLDOWN_MS', {
      default: 30_000,
      min: 100,
      max: 3_600_000,
      description: 'how long an open circuit stays open before one probe',
    }),
    endpointDisabling: {
      failureThreshold: reader.integer('CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES', {
        default: DEFAULT_ENDPOINT_DISABLING.failureThreshold,
        min: 1,
        max: 100_000,
        description:
          'failed attempts in a row to one URL that, with `CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES`, disable the endpoint like one that answered 410',
      }),
      minimumDurationMs:
        reader.integer('CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES', {
          default: DEFAULT_ENDPOINT_DISABLING.minimumDurationMinutes,
          min: 0,
          max: 43_200,
          description: 'how long since the first of those failures, both reached: the endpoint is disabled',
        }) * 60_000,
    },
    totalConcurrency: reader.integer('CALLBACK_TOTAL_CONCURRENCY', { default: 64, min: 1, max: 1_000, description: 'attempts in flight in total per replica' }),
    pollIntervalMs: reader.integer('CALLBACK_POLL_INTERVAL_MS', { default: 1_000, min: 50, max: 60_000, description: 'how often due retries are looked for' }),
    // Longer than any attempt can take, so a live replica never loses a claim mid-attempt.
    leaseMs: reader.integer('CALLBACK_LEASE_MS', {
      default: Math.max(60_000, attemptTimeoutMs * 4),
      min: attemptTimeoutMs * 2,
      max: 3_600_000,
      description: "after this long a dead replica's claimed callback is sent again",
      defaultText: '`max(60000, 4 × CALLBACK_ATTEMPT_TIMEOUT_MS)`',
    }),
    allowedDestinations,
    destinationRules: { allowHttp: readAllowHttpCallbackUrls(reader), allowedPorts: readCallbackAllowedPorts(reader) },
    gatewayInternalUrl: reader.url('GATEWAY_INTERNAL_URL', {
      default: 'http://127.0.0.1:3010',
      description: "the gateway's internal listener (webhook secrets); `npm start` and the test system set it from `GATEWAY_INTERNAL_HTTP_PORT`",
    }),
    profileCacheTtlMs: reader.integer('CALLBACK_PROFILE_CACHE_TTL_MS', {
      default: 30_000,
      min: 0,
      max: 3_600_000,
      description: 'how long webhook secrets are cached in memory',
    }),
    testClockEnabled: readTestClockEnabled(reader),
    logFormat: readLogFormat(reader),
    ...readKafkaConnectionConfig(reader),
    ...readHealthConfig(reader),
    ...readInternalTlsConfig(reader),
    serviceAuth: readServiceAuthConfig(reader, 'callbacks', Object.keys(CALLBACKS_INTERNAL_ACCESS) as ServiceName[]),
  };
  reader.assertValid();
  return config;
}
