import { randomBytes } from 'node:crypto';
import { ConfigError, ConfigReader } from './config';
import { isPublishedSecret, settingsWithPublishedSecrets } from './published-secrets';

// Values that .env.example and the dev overlay used to ship: public, in the repository's history.
const OLD_EXAMPLE_MASTER_KEY = 'bG9jYWwtZGVtby1tZXJjaGFudC1tYXN0ZXIta2V5ISE=';
const OLD_DEV_GATEWAY_SERVICE_KEY = 'MC4CAQAwBQYDK2VwBCIEIHF9dLz6CPkQf6oerkVNL0Yn1Dkjmfp35KfsYcfMtLWy';

describe('published example secrets', () => {
  it('knows the example values that were published, bare or as the password of a URL', () => {
    expect(isPublishedSecret(OLD_EXAMPLE_MASTER_KEY)).toBe(true);
    expect(isPublishedSecret(OLD_DEV_GATEWAY_SERVICE_KEY)).toBe(true);
    expect(isPublishedSecret('local-demo-kafka-admin-password')).toBe(true);
    expect(isPublishedSecret('postgres://gateway:dev-only-gateway-password@postgres:5432/gateway')).toBe(true);
  });

  it('lets a fresh value, a URL without a password and an ordinary setting through', () => {
    expect(isPublishedSecret(randomBytes(32).toString('base64'))).toBe(false);
    expect(isPublishedSecret(`postgres://gateway:${randomBytes(24).toString('hex')}@postgres:5432/gateway`)).toBe(false);
    expect(isPublishedSecret('postgres://postgres@127.0.0.1:5432/postgres')).toBe(false);
    expect(isPublishedSecret('json')).toBe(false);
  });

  it('names every setting that holds one', () => {
    expect(
      settingsWithPublishedSecrets({
        MERCHANT_SECRETS_MASTER_KEY: OLD_EXAMPLE_MASTER_KEY,
        LOG_FORMAT: 'json',
        KAFKA_SASL_PASSWORD: 'dev-only-payments-kafka-password',
        EMPTY: '',
      }),
    ).toEqual(['KAFKA_SASL_PASSWORD', 'MERCHANT_SECRETS_MASTER_KEY']);
  });

  it('stops a configuration that holds one, with every other problem, and passes one that holds none', () => {
    const published = new ConfigReader({
      SERVICE_TOKEN_PRIVATE_KEY: OLD_DEV_GATEWAY_SERVICE_KEY,
      GATEWAY_DATABASE_URL: 'postgres://gateway:local-demo-gateway-password@postgres:5432/gateway',
    });
    published.problem('another problem');
    let thrown: unknown;
    try {
      published.assertValid();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).problems).toEqual([
      'another problem',
      expect.stringMatching(/^GATEWAY_DATABASE_URL holds an example value published in this repository/),
      expect.stringMatching(/^SERVICE_TOKEN_PRIVATE_KEY holds an example value published in this repository.*npm run secrets:generate/),
    ]);
    expect(() => new ConfigReader({ SERVICE_TOKEN_PRIVATE_KEY: randomBytes(48).toString('base64') }).assertValid()).not.toThrow();
  });
});
