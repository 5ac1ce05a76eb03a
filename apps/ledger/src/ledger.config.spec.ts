import { ConfigError } from '@mp/shared-util-config';
import { ServiceKeyring } from '@mp/shared-service-auth';
import { loadLedgerAuditConfig, loadLedgerConfig } from './ledger.config';

/** Service-token keys: every service refuses to boot without its own. */
const SERVICE_KEYS = new ServiceKeyring();

describe('ledger config', () => {
  const minimal = { LEDGER_DATABASE_URL: 'postgres://ledger@127.0.0.1:5432/ledger', KAFKA_BROKERS: '127.0.0.1:9092', ...SERVICE_KEYS.environmentOf('ledger') };

  it('has the documented defaults', () => {
    expect(loadLedgerConfig(minimal)).toEqual({
      httpHost: '127.0.0.1',
      httpPort: 3002,
      internalTls: null,
      databaseUrl: 'postgres://ledger@127.0.0.1:5432/ledger',
      databasePoolMax: 10,
      databasePreparedStatementsMax: 100,
      paymentsInternalUrl: 'http://127.0.0.1:3001',
      orphanHoldGraceMs: 900_000,
      orphanHoldSweepIntervalMs: 60_000,
      partitionsConsumedConcurrently: 3,
      withdrawalsInternalUrl: 'http://127.0.0.1:3003',
      conversionFeeBasisPoints: 100,
      // No pair configured: conversions are refused; no threshold: every adjustment needs a second operator.
      operatorLimits: {
        referenceRates: new Map(),
        rateBandBasisPoints: 200,
        conversionCapsMinor: new Map(),
        approvalThresholdsMinor: new Map(),
        approvalTtlMs: 86_400_000,
      },
      kafkaBrokers: ['127.0.0.1:9092'],
      kafkaNamespace: '',
      kafkaSecurity: null,
      createTopics: true,
      logFormat: 'pretty',
      commandPartitions: 6,
      shutdownGraceMs: 10_000,
      consumerLagMax: 10_000,
      healthCheckTimeoutMs: 2_000,
      serviceAuth: expect.objectContaining({ service: 'ledger' }),
    });
  });

  it('names every problem at once', () => {
    expect(() => loadLedgerConfig({ LEDGER_HTTP_PORT: 'x', LEDGER_DATABASE_POOL_MAX: '0' })).toThrow(ConfigError);
    try {
      loadLedgerConfig({ LEDGER_HTTP_PORT: 'x', LEDGER_DATABASE_POOL_MAX: '0' });
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toMatch(/LEDGER_HTTP_PORT/);
      expect(problems).toMatch(/LEDGER_DATABASE_URL is required/);
      expect(problems).toMatch(/LEDGER_DATABASE_POOL_MAX/);
      expect(problems).toMatch(/KAFKA_BROKERS/);
    }
  });

  it('reads the operator limits: reference rates and caps per pair, thresholds per currency', () => {
    const config = loadLedgerConfig({
      ...minimal,
      LEDGER_CONVERSION_REFERENCE_RATES: 'RUB/USDT:0.0105, USDT/RUB:95',
      LEDGER_CONVERSION_RATE_BAND_BPS: '150',
      LEDGER_CONVERSION_MAX_AMOUNTS: 'RUB/USDT:100000000,USDT/RUB:1000000000',
      LEDGER_APPROVAL_THRESHOLDS: 'RUB:1000000,USDT:10000000',
      LEDGER_APPROVAL_TTL_SECONDS: '3600',
    });
    expect(config.operatorLimits).toEqual({
      referenceRates: new Map([
        ['RUB/USDT', { digits: 105n, scale: 4 }],
        ['USDT/RUB', { digits: 95n, scale: 0 }],
      ]),
      rateBandBasisPoints: 150,
      conversionCapsMinor: new Map([
        ['RUB/USDT', 100_000_000n],
        ['USDT/RUB', 1_000_000_000n],
      ]),
      approvalThresholdsMinor: new Map([
        ['RUB', 1_000_000n],
        ['USDT', 10_000_000n],
      ]),
      approvalTtlMs: 3_600_000,
    });
  });

  it('refuses malformed limit tables and a pair with a rate but no cap, naming each', () => {
    try {
      loadLedgerConfig({
        ...minimal,
        LEDGER_CONVERSION_REFERENCE_RATES: 'RUB/USDT:0.0105,RUB/XXX:1',
        LEDGER_CONVERSION_MAX_AMOUNTS: 'USDT/RUB:5',
        LEDGER_APPROVAL_THRESHOLDS: 'RUB:1.5',
      });
      throw new Error('expected a ConfigError');
    } catch (error) {
      const problems = (error as ConfigError).problems.join('\n');
      expect(problems).toMatch(/LEDGER_CONVERSION_REFERENCE_RATES.*RUB\/XXX/);
      expect(problems).toMatch(/LEDGER_APPROVAL_THRESHOLDS.*RUB:1.5/);
      expect(problems).toMatch(/RUB\/USDT has a reference rate but no cap/);
      expect(problems).toMatch(/USDT\/RUB has a cap but no reference rate/);
    }
  });

  it('lets the auditor run with the database alone', () => {
    expect(loadLedgerAuditConfig({ LEDGER_DATABASE_URL: minimal.LEDGER_DATABASE_URL })).toEqual({ databaseUrl: minimal.LEDGER_DATABASE_URL });
    expect(() => loadLedgerAuditConfig({ LEDGER_DATABASE_URL: 'mysql://x' })).toThrow(/postgres/);
  });
});
