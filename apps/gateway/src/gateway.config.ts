import { randomBytes } from 'node:crypto';
import { CREDENTIAL_LIFETIME_DAYS_LIMIT, DEFAULT_AGENT_CREDENTIAL_LIFETIME_DAYS, DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS } from '@mp/access-domain';
import { readServiceAuthConfig, type ServiceAuthConfig, type ServiceName } from '@mp/shared-service-auth';
import { DEFAULT_RATE_LIMITS, GATEWAY_INTERNAL_ACCESS, isTrustedProxyEntry, type RateLimitSettings } from '@mp/gateway-api';
import { readCallbackAllowedPorts } from '@mp/contracts-callbacks';
import { ConfigReader, readKafkaConnectionConfig, readLogFormat, type Environment, type KafkaConnectionConfig, type LogFormat } from '@mp/shared-util-config';
import { readHealthConfig, type HealthConfig } from '@mp/shared-health';
import { readMasterKeyring, type SecretKeyring } from '@mp/shared-util-secret-box';
import { readConsoleConfig, type ConsoleConfig } from '@mp/console-bff';

export interface GatewayConfig extends KafkaConnectionConfig, HealthConfig {
  /** This service's signing key and its callers' public keys (service-to-service authentication, always on). */
  serviceAuth: ServiceAuthConfig;
  logFormat: LogFormat;
  httpHost: string;
  httpPort: number;
  databaseUrl: string;
  databasePoolMax: number;
  instanceId: string;
  commandTimeoutMs: number;
  paymentsInternalUrl: string;
  ledgerInternalUrl: string;
  withdrawalsInternalUrl: string;
  disputesInternalUrl: string;
  paymentsReadTimeoutMs: number;
  allowHttpCallbackUrls: boolean;
  /** CALLBACK_ALLOWED_PORTS (default 443,8443): ports callback URLs may name, checked again by the dispatcher. */
  callbackAllowedPorts: Array<[number, number]>;
  /** MERCHANT_SECRETS_MASTER_KEY (current) and MERCHANT_SECRETS_RETIRED_KEYS: seals and opens merchant API and webhook secrets. */
  secretsKeyring: SecretKeyring;
  credentialCacheTtlMs: number;
  callbacksInternalUrl: string;
  webhookSecretOverlapHours: number;
  apiSecretOverlapHours: number;
  operatorCredentialLifetimeDays: number;
  operatorCredentialLifetimeMaxDays: number;
  operatorLiveCredentialsMax: number;
  agentCredentialLifetimeDays: number;
  /** Tests only: the internal listener takes POST /internal/test/clock to move the gateway's clock forward. */
  testClockEnabled: boolean;
  /** The internal-only listener for the callback dispatcher (and /metrics); callers authenticate with their service tokens. */
  internalHttpHost: string;
  internalHttpPort: number;
  /** Reverse proxies whose X-Forwarded-Proto is believed (HSTS is sent when it says https). */
  trustedProxies: string[];
  /** GATEWAY_RATE_LIMIT_{MERCHANT,ADDRESS,AUTH_FAILURES}_{PER_SECOND,BURST}: token buckets shared by all replicas. */
  rateLimits: RateLimitSettings;
  /** CONSOLE_ASSETS_DIR, CONSOLE_SESSION_IDLE_MINUTES, CONSOLE_SESSION_MAX_HOURS: the console served by this gateway. */
  console: ConsoleConfig;
}

/** The database and master-key part, shared by the server and the operator command. */
export function loadGatewayStorageConfig(reader: ConfigReader): Pick<GatewayConfig, 'databaseUrl' | 'databasePoolMax' | 'secretsKeyring'> {
  const secretsKeyring = readMasterKeyring(reader, 'MERCHANT_SECRETS');
  return {
    databaseUrl: reader.url('GATEWAY_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'] }),
    databasePoolMax: reader.integer('GATEWAY_DATABASE_POOL_MAX', { default: 10, min: 1, max: 200 }),
    secretsKeyring,
  };
}

/**
 * How long a new operator credential works, and the most an issuer may ask for; shared by the
 * server and the operator command. The default may not exceed the maximum.
 */
export function readOperatorCredentialLifetime(reader: ConfigReader): Pick<GatewayConfig, 'operatorCredentialLifetimeDays' | 'operatorCredentialLifetimeMaxDays'> {
  const limits = { min: 1, max: CREDENTIAL_LIFETIME_DAYS_LIMIT };
  const operatorCredentialLifetimeMaxDays = reader.integer('OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS', { default: DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS, ...limits });
  const operatorCredentialLifetimeDays = reader.integer('OPERATOR_CREDENTIAL_LIFETIME_DAYS', { default: Math.min(DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS, operatorCredentialLifetimeMaxDays), ...limits });
  if (operatorCredentialLifetimeDays > operatorCredentialLifetimeMaxDays) reader.problem(`OPERATOR_CREDENTIAL_LIFETIME_DAYS (${operatorCredentialLifetimeDays}) may not exceed OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS (${operatorCredentialLifetimeMaxDays})`);
  return { operatorCredentialLifetimeDays, operatorCredentialLifetimeMaxDays };
}

/** Reads and validates the gateway's environment once, at boot. */
export function loadGatewayConfig(environment: Environment): GatewayConfig {
  const reader = new ConfigReader(environment);
  const config: GatewayConfig = {
    logFormat: readLogFormat(reader),
    httpHost: reader.string('GATEWAY_HTTP_HOST', { default: '127.0.0.1' }),
    httpPort: reader.integer('GATEWAY_HTTP_PORT', { default: 3000, min: 0, max: 65535 }),
    ...loadGatewayStorageConfig(reader),
    ...readKafkaConnectionConfig(reader),
    ...readHealthConfig(reader),
    serviceAuth: readServiceAuthConfig(reader, 'gateway', Object.keys(GATEWAY_INTERNAL_ACCESS) as ServiceName[]),
    instanceId: reader.string('GATEWAY_INSTANCE_ID', { default: `gw-${randomBytes(6).toString('hex')}`, pattern: /^[A-Za-z0-9._-]{1,100}$/ }),
    commandTimeoutMs: reader.integer('GATEWAY_COMMAND_TIMEOUT_MS', { default: 10_000, min: 100, max: 60_000 }),
    paymentsInternalUrl: reader.url('PAYMENTS_INTERNAL_URL', { default: 'http://127.0.0.1:3001' }),
    ledgerInternalUrl: reader.url('LEDGER_INTERNAL_URL', { default: 'http://127.0.0.1:3002' }),
    withdrawalsInternalUrl: reader.url('WITHDRAWALS_INTERNAL_URL', { default: 'http://127.0.0.1:3003' }),
    disputesInternalUrl: reader.url('DISPUTES_INTERNAL_URL', { default: 'http://127.0.0.1:3004' }),
    paymentsReadTimeoutMs: reader.integer('PAYMENTS_READ_TIMEOUT_MS', { default: 3_000, min: 100, max: 60_000 }),
    allowHttpCallbackUrls: reader.boolean('ALLOW_HTTP_CALLBACK_URLS', false),
    callbackAllowedPorts: readCallbackAllowedPorts(reader),
    credentialCacheTtlMs: reader.integer('CREDENTIAL_CACHE_TTL_MS', { default: 30_000, min: 0, max: 3_600_000 }),
    callbacksInternalUrl: reader.url('CALLBACKS_INTERNAL_URL', { default: 'http://127.0.0.1:3005' }),
    webhookSecretOverlapHours: reader.integer('WEBHOOK_SECRET_OVERLAP_HOURS', { default: 24, min: 0, max: 168 }),
    apiSecretOverlapHours: reader.integer('API_SECRET_OVERLAP_HOURS', { default: 24, min: 0, max: 168 }),
    ...readOperatorCredentialLifetime(reader),
    operatorLiveCredentialsMax: reader.integer('OPERATOR_LIVE_CREDENTIALS_MAX', { default: 5, min: 1, max: 100 }),
    agentCredentialLifetimeDays: reader.integer('AGENT_CREDENTIAL_LIFETIME_DAYS', { default: DEFAULT_AGENT_CREDENTIAL_LIFETIME_DAYS, min: 1, max: CREDENTIAL_LIFETIME_DAYS_LIMIT }),
    testClockEnabled: reader.boolean('TEST_CLOCK_ENABLED', false),
    internalHttpHost: reader.string('GATEWAY_INTERNAL_HTTP_HOST', { default: '127.0.0.1' }),
    internalHttpPort: reader.integer('GATEWAY_INTERNAL_HTTP_PORT', { default: 3010, min: 0, max: 65535 }),
    trustedProxies: reader.list('GATEWAY_TRUSTED_PROXIES', { default: '' }),
    rateLimits: {
      merchant: readBucketPolicy(reader, 'MERCHANT', DEFAULT_RATE_LIMITS.merchant),
      address: readBucketPolicy(reader, 'ADDRESS', DEFAULT_RATE_LIMITS.address),
      authFailures: readBucketPolicy(reader, 'AUTH_FAILURES', DEFAULT_RATE_LIMITS.authFailures),
    },
    console: readConsoleConfig(reader),
  };
  if (config.internalHttpPort !== 0 && config.internalHttpPort === config.httpPort) reader.problem('GATEWAY_INTERNAL_HTTP_PORT must differ from GATEWAY_HTTP_PORT: the internal listener is never the public one');
  for (const entry of config.trustedProxies.filter((candidate) => !isTrustedProxyEntry(candidate))) {
    reader.problem(`GATEWAY_TRUSTED_PROXIES lists "${entry}", which is not an IP address or CIDR range`);
  }
  reader.assertValid();
  return config;
}

/** One token bucket's settings: whole requests per second and a burst of at least one request. */
function readBucketPolicy(reader: ConfigReader, name: string, defaults: RateLimitSettings['merchant']): RateLimitSettings['merchant'] {
  return {
    ratePerSecond: reader.integer(`GATEWAY_RATE_LIMIT_${name}_PER_SECOND`, { default: defaults.ratePerSecond, min: 1, max: 1_000_000 }),
    burst: reader.integer(`GATEWAY_RATE_LIMIT_${name}_BURST`, { default: defaults.burst, min: 1, max: 1_000_000 }),
  };
}
