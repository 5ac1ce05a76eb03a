import { readPreparedStatementsMax } from '@mp/shared-data-access-postgres';
import { readServiceAuthConfig, type ServiceAuthConfig, type ServiceName } from '@mp/shared-service-auth';
import { DEFAULT_REVIEW_WINDOW_HOURS } from '@mp/disputes-domain';
import { DISPUTES_INTERNAL_ACCESS, type DisputesSettings } from '@mp/disputes-infrastructure';
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

/** The disputes module's settings are read here as they are declared there (DisputesSettings), and passed on whole. */
export interface DisputesConfig extends KafkaConnectionConfig, HealthConfig, InternalTlsConfig, DisputesSettings {
  /** This service's signing key and its callers' public keys (service-to-service authentication, always on). */
  serviceAuth: ServiceAuthConfig;
  logFormat: LogFormat;
  httpHost: string;
  httpPort: number;
  databaseUrl: string;
  /**
   * The outbox relay's LISTEN connection: a session of its own, which a transaction-mode pooler
   * (PgBouncer) cannot give, so it may go straight to the server while databaseUrl goes through
   * the pooler (docs/decisions/postgres-pooler.md). The databaseUrl when unset.
   */
  databaseListenUrl: string;
  databasePoolMax: number;
  databasePreparedStatementsMax: number;
}

/** Reads and validates the disputes service's environment once, at boot. */
export function loadDisputesConfig(environment: Environment): DisputesConfig {
  const reader = new ConfigReader(environment);
  const databaseUrl = reader.url('DISPUTES_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'], description: "the disputes service's own database" });
  const config: DisputesConfig = {
    logFormat: readLogFormat(reader),
    httpHost: reader.string('DISPUTES_HTTP_HOST', { default: '127.0.0.1', description: 'internal API listen address' }),
    httpPort: reader.integer('DISPUTES_HTTP_PORT', { default: 3004, min: 0, max: 65535, description: 'internal API port' }),
    databaseUrl,
    databaseListenUrl: reader.url('DISPUTES_DATABASE_LISTEN_URL', {
      default: databaseUrl,
      defaultText: 'DISPUTES_DATABASE_URL',
      protocols: ['postgres:', 'postgresql:'],
      description:
        "the outbox relay's LISTEN connection, which needs a session of its own: straight to the primary where a transaction-mode pooler sits in front",
    }),
    databasePoolMax: reader.integer('DISPUTES_DATABASE_POOL_MAX', { default: 10, min: 1, max: 200, description: 'connection pool size' }),
    databasePreparedStatementsMax: readPreparedStatementsMax(reader, 'DISPUTES'),
    testClockEnabled: readTestClockEnabled(reader),
    // At least a minute: well past the gateway's longest wait for an open (GATEWAY_COMMAND_TIMEOUT_MS, at most 60 s).
    receiptOrphanGraceMs: reader.integer('DISPUTES_RECEIPT_ORPHAN_GRACE_MS', {
      default: 3_600_000,
      min: 60_000,
      max: 7 * 24 * 3_600_000,
      description: 'how old a receipt no open claimed must be before the sweep deletes it (at least a minute: longer than any wait for an open)',
    }),
    receiptSweepIntervalMs: reader.integer('DISPUTES_RECEIPT_SWEEP_INTERVAL_MS', {
      default: 60_000,
      min: 100,
      max: 3_600_000,
      description: 'how often the orphan-receipt sweep runs (on every replica)',
    }),
    // Up to 30 days: a dispute may be opened until a month after its order, and reviewed within this.
    reviewWindowHours: reader.integer('DISPUTE_REVIEW_WINDOW_HOURS', {
      default: DEFAULT_REVIEW_WINDOW_HOURS,
      min: 1,
      max: 720,
      description:
        "how long after an open or a reopen a dispute's review is due (1–720); fixed in each dispute when it is opened ([disputes](disputes.md#the-review-window))",
    }),
    ...readKafkaConnectionConfig(reader),
    ...readHealthConfig(reader),
    ...readInternalTlsConfig(reader),
    serviceAuth: readServiceAuthConfig(reader, 'disputes', Object.keys(DISPUTES_INTERNAL_ACCESS) as ServiceName[]),
  };
  reader.assertValid();
  return config;
}
