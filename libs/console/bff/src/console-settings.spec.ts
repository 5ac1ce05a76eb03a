import { ConfigError, ConfigReader } from '@mp/shared-util-config';
import { readConsoleConfig } from './console-settings';

const read = (environment: Record<string, string>) => {
  const reader = new ConfigReader(environment);
  const config = readConsoleConfig(reader, '/srv/workspace');
  reader.assertValid();
  return config;
};

describe('readConsoleConfig', () => {
  it('defaults to the built bundle under the working directory, 30 idle minutes and 12 hours', () => {
    expect(read({})).toEqual({ assetsDir: '/srv/workspace/dist/apps/console/public', sessionIdleMinutes: 30, sessionMaxHours: 12 });
  });

  it('takes an absolute assets directory as it is', () => {
    expect(read({ CONSOLE_ASSETS_DIR: '/app/console', CONSOLE_SESSION_IDLE_MINUTES: '5', CONSOLE_SESSION_MAX_HOURS: '2' })).toEqual({
      assetsDir: '/app/console',
      sessionIdleMinutes: 5,
      sessionMaxHours: 2,
    });
  });

  it.each([
    [{ CONSOLE_SESSION_IDLE_MINUTES: '0' }, /CONSOLE_SESSION_IDLE_MINUTES must be ≥ 1/],
    [{ CONSOLE_SESSION_IDLE_MINUTES: 'half an hour' }, /CONSOLE_SESSION_IDLE_MINUTES must be an integer/],
    [{ CONSOLE_SESSION_MAX_HOURS: '1000' }, /CONSOLE_SESSION_MAX_HOURS must be ≤ 168/],
    [{ CONSOLE_SESSION_IDLE_MINUTES: '120', CONSOLE_SESSION_MAX_HOURS: '1' }, /must not exceed CONSOLE_SESSION_MAX_HOURS/],
  ])('refuses %j at boot', (environment, message) => {
    expect(() => read(environment)).toThrow(ConfigError);
    expect(() => read(environment)).toThrow(message);
  });
});
