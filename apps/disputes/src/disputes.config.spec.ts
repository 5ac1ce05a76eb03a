import { ConfigError } from '@mp/shared-util-config';
import { ServiceKeyring } from '@mp/shared-service-auth';
import { loadDisputesConfig } from './disputes.config';

/** Service-token keys: every service refuses to boot without its own. */
const SERVICE_KEYS = new ServiceKeyring();

describe('disputes config', () => {
  const minimal = {
    DISPUTES_DATABASE_URL: 'postgres://disputes@127.0.0.1:5432/disputes',
    KAFKA_BROKERS: '127.0.0.1:9092',
    ...SERVICE_KEYS.environmentOf('disputes'),
  };

  it('has the documented defaults, the test clock off', () => {
    expect(loadDisputesConfig(minimal)).toMatchObject({
      httpHost: '127.0.0.1',
      httpPort: 3004,
      databaseUrl: 'postgres://disputes@127.0.0.1:5432/disputes',
      databasePoolMax: 10,
      testClockEnabled: false,
      receiptOrphanGraceMs: 3_600_000,
      receiptSweepIntervalMs: 60_000,
      reviewWindowHours: 72,
      kafkaBrokers: ['127.0.0.1:9092'],
      commandPartitions: 6,
    });
  });

  it('names every problem at once', () => {
    let caught: unknown;
    try {
      loadDisputesConfig({ DISPUTES_HTTP_PORT: 'x' });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(ConfigError);
    const problems = (caught as ConfigError).problems.join('\n');
    expect(problems).toMatch(/DISPUTES_HTTP_PORT/);
    expect(problems).toMatch(/DISPUTES_DATABASE_URL is required/);
  });
});
