import { readPreparedStatementsMax } from '@mp/shared-data-access-postgres';
import { readServiceAuthConfig, type ServiceAuthConfig, type ServiceName } from '@mp/shared-service-auth';
import { LEDGER_INTERNAL_ACCESS, type LedgerSettings } from '@mp/ledger-infrastructure';
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
import { parseCurrencyTable, parseMinorUnits, parsePairTable, parsePositiveRate, type OperatorMoneyLimits } from '@mp/ledger-domain';

/** The ledger module's settings are read here as they are declared there (LedgerSettings), and passed on whole. */
export interface LedgerConfig extends KafkaConnectionConfig, HealthConfig, InternalTlsConfig, LedgerSettings {
  /** This service's signing key and its callers' public keys (service-to-service authentication, always on). */
  serviceAuth: ServiceAuthConfig;
  logFormat: LogFormat;
  httpHost: string;
  httpPort: number;
  databaseUrl: string;
  databasePoolMax: number;
  databasePreparedStatementsMax: number;
}

/** Reads and validates the ledger service's environment once, at boot. */
export function loadLedgerConfig(environment: Environment): LedgerConfig {
  const reader = new ConfigReader(environment);
  const config: LedgerConfig = {
    logFormat: readLogFormat(reader),
    httpHost: reader.string('LEDGER_HTTP_HOST', { default: '127.0.0.1', description: 'internal API listen address' }),
    httpPort: reader.integer('LEDGER_HTTP_PORT', { default: 3002, min: 0, max: 65535, description: 'internal API port' }),
    databaseUrl: reader.url('LEDGER_DATABASE_URL', {
      protocols: ['postgres:', 'postgresql:'],
      description: "the ledger's own database; `npm run ledger:audit` reads it too",
    }),
    databasePoolMax: reader.integer('LEDGER_DATABASE_POOL_MAX', { default: 10, min: 1, max: 200, description: 'connection pool size' }),
    databasePreparedStatementsMax: readPreparedStatementsMax(reader, 'LEDGER'),
    paymentsInternalUrl: reader.url('PAYMENTS_INTERNAL_URL', {
      default: 'http://127.0.0.1:3001',
      protocols: ['http:', 'https:'],
      description: "what the ledger's orphan-hold sweep asks whether a payout exists",
    }),
    // Far longer than any create transaction can stay open after placing its hold.
    orphanHoldGraceMs: reader.integer('LEDGER_ORPHAN_HOLD_GRACE_MS', {
      default: 15 * 60_000,
      min: 1_000,
      max: 7 * 24 * 3_600_000,
      description: 'how long after the last request an unattached payout hold may be voided (900000: 15 min)',
    }),
    orphanHoldSweepIntervalMs: reader.integer('LEDGER_ORPHAN_HOLD_SWEEP_INTERVAL_MS', {
      default: 60_000,
      min: 100,
      max: 3_600_000,
      description: 'how often the ledger looks for orphaned holds',
    }),
    withdrawalsInternalUrl: reader.url('WITHDRAWALS_INTERNAL_URL', {
      default: 'http://127.0.0.1:3003',
      protocols: ['http:', 'https:'],
      description: "what the ledger's orphan-hold sweep asks whether a withdrawal exists",
    }),
    conversionFeeBasisPoints: reader.integer('LEDGER_CONVERSION_FEE_BASIS_POINTS', {
      default: 100,
      min: 0,
      max: 9_999,
      description: "the platform's fee on conversions, in the source currency (100: 1 %)",
    }),
    operatorLimits: readOperatorLimits(reader),
    ...readKafkaConnectionConfig(reader),
    ...readHealthConfig(reader),
    ...readInternalTlsConfig(reader),
    serviceAuth: readServiceAuthConfig(reader, 'ledger', Object.keys(LEDGER_INTERNAL_ACCESS) as ServiceName[]),
  };
  reader.assertValid();
  return config;
}

/**
 * Limits on operators' money actions (libs/ledger/domain operator-limits.ts). The defaults are
 * the safe ones: no pair configured means no conversion, and a currency without a threshold
 * needs a second operator for every adjustment; deployments set their tables.
 */
function readOperatorLimits(reader: ConfigReader): OperatorMoneyLimits {
  const table = <Key extends string, Value>(name: string, parsed: { table: Map<Key, Value>; problems: string[] }) => {
    for (const problem of parsed.problems) reader.problem(`${name}: ${problem}`);
    return parsed.table;
  };
  const referenceRates = table(
    'LEDGER_CONVERSION_REFERENCE_RATES',
    parsePairTable(
      reader.string('LEDGER_CONVERSION_REFERENCE_RATES', {
        default: '',
        description: '`FROM/TO:rate,...`, e.g. `RUB/USDT:0.0108`: the reference rate per pair; a pair not listed cannot be converted',
        defaultText: 'empty (no conversions)',
      }),
      parsePositiveRate,
      'a positive decimal rate, e.g. 0.0105',
    ),
  );
  const conversionCapsMinor = table(
    'LEDGER_CONVERSION_MAX_AMOUNTS',
    parsePairTable(
      reader.string('LEDGER_CONVERSION_MAX_AMOUNTS', {
        default: '',
        description:
          '`FROM/TO:minor units,...`: the largest conversion per pair, in the source currency; every pair with a reference rate needs one (checked at boot)',
      }),
      parseMinorUnits,
      'a whole number of minor units of the source currency',
    ),
  );
  for (const pair of referenceRates.keys())
    if (!conversionCapsMinor.has(pair)) reader.problem(`LEDGER_CONVERSION_MAX_AMOUNTS: ${pair} has a reference rate but no cap`);
  for (const pair of conversionCapsMinor.keys())
    if (!referenceRates.has(pair)) reader.problem(`LEDGER_CONVERSION_REFERENCE_RATES: ${pair} has a cap but no reference rate`);
  return {
    referenceRates,
    rateBandBasisPoints: reader.integer('LEDGER_CONVERSION_RATE_BAND_BPS', {
      default: 200,
      min: 0,
      max: 5_000,
      description: "how far, either way, a conversion's rate may be from its pair's reference (200: 2 %)",
    }),
    conversionCapsMinor,
    approvalThresholdsMinor: table(
      'LEDGER_APPROVAL_THRESHOLDS',
      parseCurrencyTable(
        reader.string('LEDGER_APPROVAL_THRESHOLDS', {
          default: '',
          description:
            '`CURRENCY:minor units,...`: above this a conversion (source amount) or deposit adjustment (either sign) needs a second operator; a currency not listed always does',
          defaultText: 'empty (every amount)',
        }),
      ),
    ),
    approvalTtlMs:
      reader.integer('LEDGER_APPROVAL_TTL_SECONDS', {
        default: 86_400,
        min: 60,
        max: 30 * 86_400,
        description: 'how long a request waits for its second operator before it lapses',
      }) * 1_000,
  };
}

/** The auditor needs only the database. */
export function loadLedgerAuditConfig(environment: Environment): { databaseUrl: string } {
  const reader = new ConfigReader(environment);
  const databaseUrl = reader.url('LEDGER_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'] });
  reader.assertValid();
  return { databaseUrl };
}
