import { readPreparedStatementsMax } from '@mp/shared-data-access-postgres';
import { randomBytes } from 'node:crypto';
import { CREDENTIAL_LIFETIME_DAYS_LIMIT, DEFAULT_AGENT_CREDENTIAL_LIFETIME_DAYS } from '@mp/access-domain';
import { readServiceAuthConfig, type ServiceAuthConfig, type ServiceName } from '@mp/shared-service-auth';
import {
  DEFAULT_RATE_LIMITS,
  GATEWAY_INTERNAL_ACCESS,
  isTrustedProxyEntry,
  readOperatorCredentialLifetime,
  type GatewaySettings,
  type RateLimitSettings,
} from '@mp/gateway-api';
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
import { readMasterKeyring, type SecretKeyring } from '@mp/shared-util-secret-box';
import { readConsoleConfig, type ConsoleConfig } from '@mp/console-bff';

/** The gateway module's settings are read here as they are declared there (GatewaySettings), and passed on whole. */
export interface GatewayConfig extends KafkaConnectionConfig, HealthConfig, InternalTlsConfig, GatewaySettings {
  /** This service's signing key and its callers' public keys (service-to-service authentication, always on). */
  serviceAuth: ServiceAuthConfig;
  logFormat: LogFormat;
  httpHost: string;
  httpPort: number;
  databaseUrl: string;
  databasePoolMax: number;
  databasePreparedStatementsMax: number;
  /** MERCHANT_SECRETS_MASTER_KEY (current) and MERCHANT_SECRETS_RETIRED_KEYS: seals and opens merchant API and webhook secrets. */
  secretsKeyring: SecretKeyring;
  /** The internal-only listener for the callback dispatcher (and /metrics); callers authenticate with their service tokens. */
  internalHttpHost: string;
  internalHttpPort: number;
  /** CONSOLE_ASSETS_DIR, CONSOLE_SESSION_IDLE_MINUTES, CONSOLE_SESSION_MAX_HOURS: the console served by this gateway. */
  console: ConsoleConfig;
}

/** The database and master-key part, shared by the server and the operator command. */
export function loadGatewayStorageConfig(
  reader: ConfigReader,
): Pick<GatewayConfig, 'databaseUrl' | 'databasePoolMax' | 'databasePreparedStatementsMax' | 'secretsKeyring'> {
  const secretsKeyring = readMasterKeyring(reader, 'MERCHANT_SECRETS', "merchants' API and webhook secrets at rest");
  return {
    databaseUrl: reader.url('GATEWAY_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'], description: "the gateway's own database" }),
    databasePoolMax: reader.integer('GATEWAY_DATABASE_POOL_MAX', { default: 10, min: 1, max: 200, description: 'connection pool size' }),
    databasePreparedStatementsMax: readPreparedStatementsMax(reader, 'GATEWAY'),
    secretsKeyring,
  };
}

/** Reads and validates the gateway's environment once, at boot. */
export function loadGatewayConfig(environment: Environment): GatewayConfig {
  const reader = new ConfigReader(environment);
  const config: GatewayConfig = {
    logFormat: readLogFormat(reader),
    httpHost: reader.string('GATEWAY_HTTP_HOST', {
      default: '127.0.0.1',
      description: 'listen address of the merchant API (`/v2`), payer pages and back office',
    }),
    httpPort: reader.integer('GATEWAY_HTTP_PORT', { default: 3000, min: 0, max: 65535, description: 'port of the merchant API, payer pages and back office' }),
    ...loadGatewayStorageConfig(reader),
    ...readKafkaConnectionConfig(reader),
    ...readHealthConfig(reader),
    ...readInternalTlsConfig(reader),
    serviceAuth: readServiceAuthConfig(reader, 'gateway', Object.keys(GATEWAY_INTERNAL_ACCESS) as ServiceName[]),
    instanceId: reader.string('GATEWAY_INSTANCE_ID', {
      default: `gw-${randomBytes(6).toString('hex')}`,
      pattern: /^[A-Za-z0-9._-]{1,100}$/,
      description: "names the replica's reply topic and group; a replica deletes both when it stops cleanly, and the sweep those of a replica that crashed",
      defaultText: 'random (`gw-` and 12 hex digits)',
    }),
    commandTimeoutMs: reader.integer('GATEWAY_COMMAND_TIMEOUT_MS', {
      default: 10_000,
      min: 100,
      max: 60_000,
      description: "wait for a command's outcome before `503`",
    }),
    // A sweep is two admin requests; a replica out of its group for ten minutes is not serving anyway.
    replyTopicSweepIntervalMs:
      reader.integer('GATEWAY_REPLY_TOPIC_SWEEP_SECONDS', {
        default: 60,
        min: 1,
        max: 3600,
        description: 'how often each replica looks for reply topics left by replicas that crashed',
      }) * 1000,
    replyTopicGraceMs:
      reader.integer('GATEWAY_REPLY_TOPIC_GRACE_SECONDS', {
        default: 600,
        min: 0,
        max: 7 * 86_400,
        description: "how long a reply topic's group may have no member before the sweep deletes the topic, its dead-letter topic and the group",
      }) * 1000,
    paymentsInternalUrl: reader.url('PAYMENTS_INTERNAL_URL', {
      default: 'http://127.0.0.1:3001',
      description: "the payments service's internal API, where the gateway's reads go",
    }),
    ledgerInternalUrl: reader.url('LEDGER_INTERNAL_URL', {
      default: 'http://127.0.0.1:3002',
      description: "the ledger's internal API (balances, statements, operator actions)",
    }),
    withdrawalsInternalUrl: reader.url('WITHDRAWALS_INTERNAL_URL', { default: 'http://127.0.0.1:3003', description: 'withdrawal reads and the asset table' }),
    disputesInternalUrl: reader.url('DISPUTES_INTERNAL_URL', {
      default: 'http://127.0.0.1:3004',
      description: "the disputes service's internal API (dispute reads, receipts, reviews)",
    }),
    paymentsReadTimeoutMs: reader.integer('PAYMENTS_READ_TIMEOUT_MS', {
      default: 3_000,
      min: 100,
      max: 60_000,
      description: 'timeout of reads from the payments and ledger services',
    }),
    allowHttpCallbackUrls: readAllowHttpCallbackUrls(reader),
    callbackAllowedPorts: readCallbackAllowedPorts(reader),
    credentialCacheTtlMs: reader.integer('CREDENTIAL_CACHE_TTL_MS', {
      default: 30_000,
      min: 0,
      max: 3_600_000,
      description: 'how long decrypted API secrets and callback allow-lists are cached',
    }),
    callbacksInternalUrl: reader.url('CALLBACKS_INTERNAL_URL', {
      default: 'http://127.0.0.1:3005',
      description: "the dispatcher's internal API (delivery log, profile's disabled flag)",
    }),
    webhookSecretOverlapHours: reader.integer('WEBHOOK_SECRET_OVERLAP_HOURS', {
      default: 24,
      min: 0,
      max: 168,
      description: 'how long a rotated-out webhook secret still signs callbacks (0–168)',
    }),
    apiSecretOverlapHours: reader.integer('API_SECRET_OVERLAP_HOURS', {
      default: 24,
      min: 0,
      max: 168,
      description: 'how long a rotated-out API secret still verifies requests (0–168), unless the rotation names its own',
    }),
    ...readOperatorCredentialLifetime(reader),
    operatorLiveCredentialsMax: reader.integer('OPERATOR_LIVE_CREDENTIALS_MAX', {
      default: 5,
      min: 1,
      max: 100,
      description: 'how many live operator credentials one operator may have issued; one more is refused with `LIVE_CREDENTIAL_LIMIT`',
    }),
    agentCredentialLifetimeDays: reader.integer('AGENT_CREDENTIAL_LIFETIME_DAYS', {
      default: DEFAULT_AGENT_CREDENTIAL_LIFETIME_DAYS,
      min: 1,
      max: CREDENTIAL_LIFETIME_DAYS_LIMIT,
      description: "how long an agent's credential works, new or renewed; renew before it ends (docs/operations/agents.md)",
    }),
    testClockEnabled: readTestClockEnabled(reader),
    internalHttpHost: reader.string('GATEWAY_INTERNAL_HTTP_HOST', {
      default: '127.0.0.1',
      description: 'internal-only listener serving webhook secrets to the dispatcher, and `/metrics`; never published',
    }),
    internalHttpPort: reader.integer('GATEWAY_INTERNAL_HTTP_PORT', {
      default: 3010,
      min: 0,
      max: 65535,
      description: "the internal listener's port; must differ from `GATEWAY_HTTP_PORT`",
    }),
    trustedProxies: reader.list('GATEWAY_TRUSTED_PROXIES', {
      default: '',
      description:
        'comma-separated IP addresses or CIDR ranges of the reverse proxies in front of the gateway; only their `X-Forwarded-Proto` (HSTS is sent when the last value is `https`) and `X-Forwarded-For` (the client address of per-address rate limits) are believed',
      defaultText: 'empty (trust none)',
    }),
    rateLimits: {
      merchant: readBucketPolicy(
        reader,
        'MERCHANT',
        DEFAULT_RATE_LIMITS.merchant,
        'per-merchant token bucket, shared by all replicas, charged after the signature check; operators override it per merchant ([gateway](gateway.md#rate-limits))',
      ),
      address: readBucketPolicy(
        reader,
        'ADDRESS',
        DEFAULT_RATE_LIMITS.address,
        'per-client-address bucket of routes without a credential (payer page, health)',
      ),
      authFailures: readBucketPolicy(
        reader,
        'AUTH_FAILURES',
        DEFAULT_RATE_LIMITS.authFailures,
        'per-client-address bucket of `401`s on `/v2` and `/backoffice/v1`',
      ),
    },
    console: readConsoleConfig(reader),
  };
  if (config.internalHttpPort !== 0 && config.internalHttpPort === config.httpPort)
    reader.problem('GATEWAY_INTERNAL_HTTP_PORT must differ from GATEWAY_HTTP_PORT: the internal listener is never the public one');
  for (const entry of config.trustedProxies.filter((candidate) => !isTrustedProxyEntry(candidate))) {
    reader.problem(`GATEWAY_TRUSTED_PROXIES lists "${entry}", which is not an IP address or CIDR range`);
  }
  reader.assertValid();
  return config;
}

/** One token bucket's settings: whole requests per second and a burst of at least one request. */
function readBucketPolicy(reader: ConfigReader, name: string, defaults: RateLimitSettings['merchant'], bucket: string): RateLimitSettings['merchant'] {
  return {
    ratePerSecond: reader.integer(`GATEWAY_RATE_LIMIT_${name}_PER_SECOND`, {
      default: defaults.ratePerSecond,
      min: 1,
      max: 1_000_000,
      description: `requests per second refilling the ${bucket}`,
    }),
    burst: reader.integer(`GATEWAY_RATE_LIMIT_${name}_BURST`, {
      default: defaults.burst,
      min: 1,
      max: 1_000_000,
      description: `the largest burst of the ${bucket}`,
    }),
  };
}
