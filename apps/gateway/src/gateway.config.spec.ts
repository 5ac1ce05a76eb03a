import { randomBytes } from 'node:crypto';
import { ConfigError } from '@mp/shared-util-config';
import { loadGatewayConfig } from './gateway.config';

describe('gateway config: callbacks', () => {
  const minimal = {
    GATEWAY_DATABASE_URL: 'postgres://gw@127.0.0.1:5432/gateway',
    KAFKA_BROKERS: '127.0.0.1:9092',
    MERCHANT_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
  };

  it('has the documented defaults: no internal listener without a service token', () => {
    expect(loadGatewayConfig(minimal)).toMatchObject({
      callbacksInternalUrl: 'http://127.0.0.1:3003',
      webhookSecretOverlapHours: 24,
      internalHttpHost: '127.0.0.1',
      internalHttpPort: 3010,
      internalServiceToken: '',
    });
  });

  it('refuses a short service token, an overlap above 7 days and the internal listener on the public port', () => {
    try {
      loadGatewayConfig({ ...minimal, INTERNAL_SERVICE_TOKEN: 'short', WEBHOOK_SECRET_OVERLAP_HOURS: '200', GATEWAY_HTTP_PORT: '4000', GATEWAY_INTERNAL_HTTP_PORT: '4000' });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      for (const name of ['INTERNAL_SERVICE_TOKEN', 'WEBHOOK_SECRET_OVERLAP_HOURS', 'GATEWAY_INTERNAL_HTTP_PORT']) expect(problems).toMatch(name);
    }
  });
});
