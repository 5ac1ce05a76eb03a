import { randomBytes } from 'node:crypto';
import { ConfigError } from '@mp/shared-util-config';
import { ServiceKeyring } from '@mp/shared-service-auth';
import { loadPaymentsConfig } from './payments.config';

/** Service-token keys: every service refuses to boot without its own. */
const SERVICE_KEYS = new ServiceKeyring();

describe('payments config', () => {
  const key = randomBytes(32);
  const minimal = {
    PAYMENTS_DATABASE_URL: 'postgres://payments@127.0.0.1:5432/payments',
    KAFKA_BROKERS: '127.0.0.1:9092',
    PAYMENTS_SECRETS_MASTER_KEY: key.toString('base64'),
    ...SERVICE_KEYS.environmentOf('payments'),
  };

  function problemsOf(environment: Record<string, string>): string {
    try {
      loadPaymentsConfig(environment);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems.join('\n');
      throw error;
    }
    throw new Error('expected a ConfigError');
  }

  it("LISTENs for outbox notifications on PAYMENTS_DATABASE_LISTEN_URL (straight to the server, past a pooler), else on the pool's URL", () => {
    expect(loadPaymentsConfig(minimal).databaseListenUrl).toBe(minimal.PAYMENTS_DATABASE_URL);
    expect(loadPaymentsConfig({ ...minimal, PAYMENTS_DATABASE_LISTEN_URL: 'postgres://payments@primary:5432/payments' }).databaseListenUrl).toBe(
      'postgres://payments@primary:5432/payments',
    );
    expect(problemsOf({ ...minimal, PAYMENTS_DATABASE_LISTEN_URL: 'http://primary/payments' })).toMatch(
      /PAYMENTS_DATABASE_LISTEN_URL must use postgres: or postgresql:/,
    );
  });

  it('reads the secrets master key as key version 1 when no version is given', () => {
    const keyring = loadPaymentsConfig(minimal).secretsKeyring;
    expect(keyring.currentVersion).toBe(1);
    expect(keyring.keyFor(1).equals(key)).toBe(true);
  });

  it('reads a rotated keyring: the current key with its version, the retired ones by version', () => {
    const next = randomBytes(32);
    const keyring = loadPaymentsConfig({
      ...minimal,
      PAYMENTS_SECRETS_MASTER_KEY: next.toString('base64'),
      PAYMENTS_SECRETS_MASTER_KEY_VERSION: '2',
      PAYMENTS_SECRETS_RETIRED_KEYS: `1:${key.toString('base64')}`,
    }).secretsKeyring;
    expect(keyring.currentVersion).toBe(2);
    expect(keyring.retiredVersions).toEqual([1]);
    expect(keyring.keyFor(1).equals(key)).toBe(true);
    expect(problemsOf({ ...minimal, PAYMENTS_SECRETS_RETIRED_KEYS: `1:${next.toString('base64')}` })).toMatch(
      /PAYMENTS_SECRETS_RETIRED_KEYS lists version 1, the current PAYMENTS_SECRETS_MASTER_KEY_VERSION/,
    );
  });

  it('refuses to start without the secrets master key, or with one of the wrong size', () => {
    const { PAYMENTS_SECRETS_MASTER_KEY: _omitted, ...withoutKey } = minimal;
    expect(problemsOf(withoutKey)).toMatch(/PAYMENTS_SECRETS_MASTER_KEY is required/);
    expect(problemsOf({ ...minimal, PAYMENTS_SECRETS_MASTER_KEY: randomBytes(16).toString('base64') })).toMatch(
      /PAYMENTS_SECRETS_MASTER_KEY must decode to 32 bytes, got 16/,
    );
  });
});
