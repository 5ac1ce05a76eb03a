import { ConfigError } from '@mp/shared-util-config';
import { ServiceKeyring } from '@mp/shared-service-auth';
import { loadCallbackDispatcherConfig } from './callback-dispatcher.config';

/** Service-token keys: every service refuses to boot without its own. */
const SERVICE_KEYS = new ServiceKeyring();

describe('callback dispatcher config', () => {
  const minimal = {
    CALLBACKS_DATABASE_URL: 'postgres://cb@127.0.0.1:5432/callbacks',
    KAFKA_BROKERS: '127.0.0.1:9092',
    ...SERVICE_KEYS.environmentOf('callbacks'),
  };

  it('has the documented defaults', () => {
    const config = loadCallbackDispatcherConfig(minimal);
    expect(config).toMatchObject({
      httpPort: 3005,
      attemptTimeoutMs: 15_000,
      perOriginConcurrency: 4,
      circuitFailureThreshold: 5,
      circuitCooldownMs: 30_000,
      totalConcurrency: 64,
      pollIntervalMs: 1_000,
      leaseMs: 60_000,
      allowedDestinations: [],
      gatewayInternalUrl: 'http://127.0.0.1:3010',
      testClockEnabled: false,
      endpointDisabling: { failureThreshold: 20, minimumDurationMs: 86_400_000 },
    });
    expect(config.retrySchedule.delaysMs).toEqual([0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000]);
  });

  it('names every problem at once', () => {
    try {
      loadCallbackDispatcherConfig({
        CALLBACK_RETRY_SCHEDULE: '5s,later',
        CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES: '0',
        CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES: 'soon',
        CALLBACK_ALLOWED_DESTINATIONS: 'not-an-ip',
        SERVICE_TOKEN_PRIVATE_KEY: 'not-a-key',
      });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of [
        'CALLBACK_RETRY_SCHEDULE',
        'CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES',
        'CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES',
        'CALLBACK_ALLOWED_DESTINATIONS',
        'SERVICE_TOKEN_PRIVATE_KEY is not a usable key',
        'SERVICE_TOKEN_PUBLIC_KEYS is required',
        'CALLBACKS_DATABASE_URL',
        'KAFKA_BROKERS',
      ])
        expect(problems).toMatch(name);
    }
  });
});
