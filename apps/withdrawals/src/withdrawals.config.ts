import { readPreparedStatementsMax } from '@mp/shared-data-access-postgres';
import { readServiceAuthConfig, type ServiceAuthConfig, type ServiceName } from '@mp/shared-service-auth';
import { WITHDRAWALS_INTERNAL_ACCESS, type WithdrawalsSettings } from '@mp/withdrawals-infrastructure';
import {
  ConfigReader,
  readInternalTlsConfig,
  readKafkaConnectionConfig,
  readLogFormat,
  type Environment,
  type InternalTlsConfig,
  type KafkaConnectionConfig,
  type LogFormat,
} from '@mp/shared-util-config';
import { readHealthConfig, type HealthConfig } from '@mp/shared-health';
import { parseAmountLiteral } from '@mp/shared-util-money';
import { DEFAULT_WITHDRAWAL_ASSETS, type WithdrawalAsset } from '@mp/withdrawals-domain';

/** The withdrawals module's settings are read here as they are declared there (WithdrawalsSettings), and passed on whole. */
export interface WithdrawalsConfig extends KafkaConnectionConfig, HealthConfig, InternalTlsConfig, WithdrawalsSettings {
  /** This service's signing key and its callers' public keys (service-to-service authentication, always on). */
  serviceAuth: ServiceAuthConfig;
  httpHost: string;
  httpPort: number;
  logFormat: LogFormat;
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

/** Reads and validates the withdrawals service's environment once, at boot. */
export function loadWithdrawalsConfig(environment: Environment): WithdrawalsConfig {
  const reader = new ConfigReader(environment);
  const databaseUrl = reader.url('WITHDRAWALS_DATABASE_URL', {
    protocols: ['postgres:', 'postgresql:'],
    description: "the withdrawals service's own database",
  });
  const failPattern = reader.optionalString('WITHDRAWALS_SIMULATOR_FAIL_ADDRESS_PATTERN', {
    description: 'the simulated network fails sends to addresses matching this regular expression',
  });
  const config: WithdrawalsConfig = {
    httpHost: reader.string('WITHDRAWALS_HTTP_HOST', { default: '127.0.0.1', description: 'internal API listen address' }),
    httpPort: reader.integer('WITHDRAWALS_HTTP_PORT', { default: 3003, min: 0, max: 65535, description: 'internal API port' }),
    logFormat: readLogFormat(reader),
    databaseUrl,
    databaseListenUrl: reader.url('WITHDRAWALS_DATABASE_LISTEN_URL', {
      default: databaseUrl,
      defaultText: 'WITHDRAWALS_DATABASE_URL',
      protocols: ['postgres:', 'postgresql:'],
      description:
        "the outbox relay's LISTEN connection, which needs a session of its own: straight to the primary where a transaction-mode pooler sits in front",
    }),
    databasePoolMax: reader.integer('WITHDRAWALS_DATABASE_POOL_MAX', { default: 10, min: 1, max: 200, description: 'connection pool size' }),
    databasePreparedStatementsMax: readPreparedStatementsMax(reader, 'WITHDRAWALS'),
    ...readKafkaConnectionConfig(reader),
    ...readHealthConfig(reader),
    ...readInternalTlsConfig(reader),
    serviceAuth: readServiceAuthConfig(reader, 'withdrawals', Object.keys(WITHDRAWALS_INTERNAL_ACCESS) as ServiceName[]),
    ledgerInternalUrl: reader.url('LEDGER_INTERNAL_URL', { default: 'http://127.0.0.1:3002', description: "the ledger's internal API (withdrawal holds)" }),
    ledgerTimeoutMs: reader.integer('LEDGER_TIMEOUT_MS', {
      default: 3_000,
      min: 100,
      max: 60_000,
      description: 'timeout of a withdrawal hold request; on timeout the create answers `503` and a retry is safe',
    }),
    assets: withNetworkFees(
      DEFAULT_WITHDRAWAL_ASSETS,
      reader.optionalString('WITHDRAWALS_NETWORK_FEES', {
        description: '`CODE=amount,...` replaces network fees, e.g. `USDT-TRC20=0`',
        defaultText: "the asset table's",
      }),
      reader,
    ),
    sendIntervalMs: reader.integer('WITHDRAWALS_SEND_INTERVAL_MS', {
      default: 1_000,
      min: 50,
      max: 3_600_000,
      description: 'how often the sender claims `PENDING` withdrawals',
    }),
    // Far longer than one send takes: a live replica must never lose its claim mid-send.
    sendLeaseMs: reader.integer('WITHDRAWALS_SEND_LEASE_MS', {
      default: 120_000,
      min: 500,
      max: 86_400_000,
      description: 'how long a claim lasts before another replica may send it',
    }),
    sendConcurrency: reader.integer('WITHDRAWALS_SEND_CONCURRENCY', {
      default: 8,
      min: 1,
      max: 100,
      description: 'how many withdrawals a replica sends at once',
    }),
    simulator: {
      delayMs: reader.integer('WITHDRAWALS_SIMULATOR_DELAY_MS', { default: 2_000, min: 0, max: 600_000, description: "the simulated network's delay" }),
      outcome: reader.string('WITHDRAWALS_SIMULATOR_OUTCOME', {
        default: 'succeed',
        pattern: /^(succeed|fail)$/,
        hint: 'succeed or fail',
        description: "the simulated network's outcome: `succeed` or `fail`",
      }) as 'succeed' | 'fail',
      failAddressPattern: failPattern === undefined ? null : compilePattern(failPattern, reader),
    },
    crashAfterNetworkSend: reader.boolean('FAULT_CRASH_AFTER_NETWORK_SEND', false, {
      description: 'tests only: SIGKILL after the network accepted a send, before its outcome is recorded',
    }),
  };
  reader.assertValid();
  return config;
}

/**
 * `WITHDRAWALS_NETWORK_FEES=USDT-TRC20=0,BTC=0.00004`: replaces the network fee of the named
 * assets (decimal amounts of the balance asset). The rest of the table stays as shipped.
 */
export function withNetworkFees(assets: readonly WithdrawalAsset[], overrides: string | undefined, reader: ConfigReader): WithdrawalAsset[] {
  const table = assets.map((asset) => ({ ...asset }));
  for (const entry of (overrides ?? '').split(',').filter((item) => item.trim() !== '')) {
    const [code, amount] = entry.split('=').map((part) => part.trim());
    const asset = table.find((candidate) => candidate.code === code);
    if (!asset || amount === undefined) {
      reader.problem(`WITHDRAWALS_NETWORK_FEES: "${entry}" must be CODE=amount with a code of ${assets.map((candidate) => candidate.code).join(', ')}`);
      continue;
    }
    if (/^0(\.0+)?$/.test(amount)) {
      asset.networkFeeMinor = 0n;
      continue;
    }
    const parsed = parseAmountLiteral(amount, asset.balanceAsset);
    if (parsed.ok) asset.networkFeeMinor = parsed.amountMinor;
    else reader.problem(`WITHDRAWALS_NETWORK_FEES: the fee of ${code} must be a decimal amount of ${asset.balanceAsset}, got "${amount}"`);
  }
  return table;
}

function compilePattern(source: string, reader: ConfigReader): RegExp | null {
  try {
    return new RegExp(source);
  } catch {
    reader.problem(`WITHDRAWALS_SIMULATOR_FAIL_ADDRESS_PATTERN must be a regular expression, got "${source}"`);
    return null;
  }
}
