import { readPreparedStatementsMax } from '@mp/shared-data-access-postgres';
import { readServiceAuthConfig, type ServiceAuthConfig, type ServiceName } from '@mp/shared-service-auth';
import { PAYMENTS_INTERNAL_ACCESS, type PaymentsSettings } from '@mp/payments-infrastructure';
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
import { readMasterKeyring } from '@mp/shared-util-secret-box';

/**
 * The payments module's settings are read here as they are declared there (PaymentsSettings), and
 * passed on whole; the payer page's base URL is the service's public base URL.
 */
export interface PaymentsConfig extends KafkaConnectionConfig, HealthConfig, InternalTlsConfig, Omit<PaymentsSettings, 'payerPageBaseUrl'> {
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
  publicBaseUrl: string;
  ledgerInternalUrl: string;
  ledgerTimeoutMs: number;
}

/** Reads and validates the payments service's environment once, at boot. */
export function loadPaymentsConfig(environment: Environment): PaymentsConfig {
  const reader = new ConfigReader(environment);
  const databaseUrl = reader.url('PAYMENTS_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'], description: "the payments service's own database" });
  const config: PaymentsConfig = {
    logFormat: readLogFormat(reader),
    httpHost: reader.string('PAYMENTS_HTTP_HOST', { default: '127.0.0.1', description: 'internal API listen address' }),
    httpPort: reader.integer('PAYMENTS_HTTP_PORT', { default: 3001, min: 0, max: 65535, description: 'internal API port' }),
    databaseUrl,
    databaseListenUrl: reader.url('PAYMENTS_DATABASE_LISTEN_URL', {
      default: databaseUrl,
      defaultText: 'PAYMENTS_DATABASE_URL',
      protocols: ['postgres:', 'postgresql:'],
      description:
        "the outbox relay's LISTEN connection, which needs a session of its own: straight to the primary where a transaction-mode pooler sits in front",
    }),
    databasePoolMax: reader.integer('PAYMENTS_DATABASE_POOL_MAX', { default: 10, min: 1, max: 200, description: 'connection pool size' }),
    databasePreparedStatementsMax: readPreparedStatementsMax(reader, 'PAYMENTS'),
    ...readKafkaConnectionConfig(reader),
    ...readHealthConfig(reader),
    ...readInternalTlsConfig(reader),
    serviceAuth: readServiceAuthConfig(reader, 'payments', Object.keys(PAYMENTS_INTERNAL_ACCESS) as ServiceName[]),
    publicBaseUrl: reader.url('PUBLIC_BASE_URL', {
      default: 'http://127.0.0.1:3000',
      description:
        "base of `redirect_url` (the gateway's public URL); a payer-page link stays the same across a master-key rotation while the order's key version is configured",
    }),
    secretsKeyring: readMasterKeyring(
      reader,
      'PAYMENTS_SECRETS',
      'recipient account numbers at rest and payer-page tokens (a key per purpose is derived from it)',
    ),
    crashAfterCommitOf:
      reader.optionalString('FAULT_CRASH_AFTER_COMMIT_OF', { description: 'tests only: SIGKILL after committing this command type, before its reply' }) ?? null,
    ledgerInternalUrl: reader.url('LEDGER_INTERNAL_URL', { default: 'http://127.0.0.1:3002', description: "the ledger's internal API (payout holds)" }),
    ledgerTimeoutMs: reader.integer('LEDGER_TIMEOUT_MS', {
      default: 3_000,
      min: 100,
      max: 60_000,
      description: 'timeout of a payout hold request; on timeout the create answers `503` and a retry is safe',
    }),
    expirySweepIntervalMs: reader.integer('PAYMENTS_EXPIRY_SWEEP_INTERVAL_MS', {
      default: 5_000,
      min: 100,
      max: 3_600_000,
      description: 'how often unconfirmed orders past `expires_at` are expired',
    }),
    testClockEnabled: readTestClockEnabled(reader),
  };
  reader.assertValid();
  return config;
}
