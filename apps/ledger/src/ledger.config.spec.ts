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
      databaseUrl: 'postgres://ledger@127.0.0.1:5432/ledger',
      databasePoolMax: 10,
      paymentsInternalUrl: 'http://127.0.0.1:3001',
      orphanHoldGraceMs: 900_000,
      orphanHoldSweepIntervalMs: 60_000,
      withdrawalsInternalUrl: 'http://127.0.0.1:3003',
      conversionFeeBasisPoints: 100,
      kafkaBrokers: ['127.0.0.1:9092'],
      kafkaNamespace: '',
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

  it('lets the auditor run with the database alone', () => {
    expect(loadLedgerAuditConfig({ LEDGER_DATABASE_URL: minimal.LEDGER_DATABASE_URL })).toEqual({ databaseUrl: minimal.LEDGER_DATABASE_URL });
    expect(() => loadLedgerAuditConfig({ LEDGER_DATABASE_URL: 'mysql://x' })).toThrow(/postgres/);
  });
});
