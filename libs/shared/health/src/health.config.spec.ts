import { ConfigError, ConfigReader } from '@mp/shared-util-config';
import { readHealthConfig } from './health.config';

function load(environment: Record<string, string>) {
  const reader = new ConfigReader(environment);
  const config = readHealthConfig(reader);
  reader.assertValid();
  return config;
}

describe('health and shutdown config', () => {
  it('has the documented defaults', () => {
    expect(load({})).toEqual({ shutdownGraceMs: 10_000, consumerLagMax: 10_000, healthCheckTimeoutMs: 2_000 });
  });

  it('takes 0 as "report the lag, never fail on it"', () => {
    expect(load({ HEALTH_CONSUMER_LAG_MAX: '0' }).consumerLagMax).toBe(0);
  });

  it('refuses a grace too short to finish anything, naming every problem', () => {
    expect(() => load({ SHUTDOWN_GRACE_MS: '10', HEALTH_CHECK_TIMEOUT_MS: 'soon' })).toThrow(ConfigError);
    try {
      load({ SHUTDOWN_GRACE_MS: '10', HEALTH_CHECK_TIMEOUT_MS: 'soon' });
    } catch (error) {
      expect((error as ConfigError).problems.join('\n')).toMatch(/SHUTDOWN_GRACE_MS[\s\S]*HEALTH_CHECK_TIMEOUT_MS/);
    }
  });
});
