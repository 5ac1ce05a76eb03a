import { randomBytes } from 'node:crypto';
import { ConfigError } from '@mp/shared-util-config';
import { ServiceKeyring } from '@mp/shared-service-auth';
import { loadGatewayConfig } from './gateway.config';

/** Service-token keys: every service refuses to boot without its own. */
const SERVICE_KEYS = new ServiceKeyring();

describe('gateway config: trusted proxies', () => {
  const minimal = {
    GATEWAY_DATABASE_URL: 'postgres://gateway@127.0.0.1:5432/gateway',
    KAFKA_BROKERS: '127.0.0.1:9092',
    MERCHANT_SECRETS_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    ...SERVICE_KEYS.environmentOf('gateway'),
  };

  it('trusts no proxy by default', () => {
    expect(loadGatewayConfig(minimal).trustedProxies).toEqual([]);
  });

  it('reads addresses and CIDR ranges of both IP versions', () => {
    expect(loadGatewayConfig({ ...minimal, GATEWAY_TRUSTED_PROXIES: '10.0.0.0/8, 127.0.0.1,::1, fd00::/8' }).trustedProxies).toEqual([
      '10.0.0.0/8',
      '127.0.0.1',
      '::1',
      'fd00::/8',
    ]);
  });

  it('refuses to start with an entry that is not an address or range, naming it', () => {
    let problems: string[] = [];
    try {
      loadGatewayConfig({ ...minimal, GATEWAY_TRUSTED_PROXIES: '10.0.0.1,proxy.internal,10.0.0.0/40' });
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      problems = error.problems;
    }
    expect(problems).toEqual([
      'GATEWAY_TRUSTED_PROXIES lists "proxy.internal", which is not an IP address or CIDR range',
      'GATEWAY_TRUSTED_PROXIES lists "10.0.0.0/40", which is not an IP address or CIDR range',
    ]);
  });
});

describe('gateway config: callbacks', () => {
  const minimal = {
    GATEWAY_DATABASE_URL: 'postgres://gw@127.0.0.1:5432/gateway',
    KAFKA_BROKERS: '127.0.0.1:9092',
    MERCHANT_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
    ...SERVICE_KEYS.environmentOf('gateway'),
  };

  it('has the documented defaults, and the dispatcher’s public key for its internal listener', () => {
    const config = loadGatewayConfig(minimal);
    expect(config).toMatchObject({
      callbacksInternalUrl: 'http://127.0.0.1:3005',
      webhookSecretOverlapHours: 24,
      internalHttpHost: '127.0.0.1',
      internalHttpPort: 3010,
    });
    expect(config.serviceAuth.service).toBe('gateway');
    expect(config.serviceAuth.publicKeys.has('callbacks')).toBe(true);
  });

  it('refuses to boot without its service-token keys, with an overlap above 7 days or the internal listener on the public port', () => {
    try {
      loadGatewayConfig({
        ...minimal,
        SERVICE_TOKEN_PRIVATE_KEY: '',
        SERVICE_TOKEN_PUBLIC_KEYS: `ledger:${SERVICE_KEYS.keys.ledger.publicKey}`,
        WEBHOOK_SECRET_OVERLAP_HOURS: '200',
        GATEWAY_HTTP_PORT: '4000',
        GATEWAY_INTERNAL_HTTP_PORT: '4000',
      });
      throw new Error('accepted');
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const problems = (error as ConfigError).problems.join('\n');
      for (const problem of [
        'SERVICE_TOKEN_PRIVATE_KEY is required',
        'SERVICE_TOKEN_PUBLIC_KEYS lacks the public key of callbacks',
        'WEBHOOK_SECRET_OVERLAP_HOURS',
        'GATEWAY_INTERNAL_HTTP_PORT',
      ])
        expect(problems).toMatch(problem);
    }
  });
});

describe('gateway config: master keyring', () => {
  const current = randomBytes(32);
  const retired = randomBytes(32);
  const minimal = {
    GATEWAY_DATABASE_URL: 'postgres://gw@127.0.0.1:5432/gateway',
    KAFKA_BROKERS: '127.0.0.1:9092',
    MERCHANT_SECRETS_MASTER_KEY: current.toString('base64'),
    ...SERVICE_KEYS.environmentOf('gateway'),
  };

  it('reads MERCHANT_SECRETS_MASTER_KEY alone as key version 1, and a rotated keyring with its retired keys', () => {
    expect(loadGatewayConfig(minimal).secretsKeyring.versions).toEqual([1]);
    const keyring = loadGatewayConfig({
      ...minimal,
      MERCHANT_SECRETS_MASTER_KEY_VERSION: '2',
      MERCHANT_SECRETS_RETIRED_KEYS: `1:${retired.toString('base64')}`,
    }).secretsKeyring;
    expect(keyring.currentVersion).toBe(2);
    expect(keyring.keyFor(1).equals(retired)).toBe(true);
  });

  it('refuses a retired key list that repeats a version, naming the variable', () => {
    expect(() =>
      loadGatewayConfig({
        ...minimal,
        MERCHANT_SECRETS_MASTER_KEY_VERSION: '3',
        MERCHANT_SECRETS_RETIRED_KEYS: `1:${retired.toString('base64')},1:${randomBytes(32).toString('base64')}`,
      }),
    ).toThrow(/MERCHANT_SECRETS_RETIRED_KEYS lists version 1 twice/);
  });
});

describe('gateway config: secret overlaps and operator credentials', () => {
  const minimal = {
    GATEWAY_DATABASE_URL: 'postgres://gw@127.0.0.1:5432/gateway',
    KAFKA_BROKERS: '127.0.0.1:9092',
    MERCHANT_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
    ...SERVICE_KEYS.environmentOf('gateway'),
  };

  it('defaults to a 24-hour API-secret overlap, 90-day operator and agent credentials (at most 90), five live issued per operator, and no test clock', () => {
    expect(loadGatewayConfig(minimal)).toMatchObject({
      apiSecretOverlapHours: 24,
      operatorCredentialLifetimeDays: 90,
      operatorCredentialLifetimeMaxDays: 90,
      operatorLiveCredentialsMax: 5,
      agentCredentialLifetimeDays: 90,
      testClockEnabled: false,
    });
  });

  it('reads them', () => {
    expect(
      loadGatewayConfig({
        ...minimal,
        API_SECRET_OVERLAP_HOURS: '2',
        OPERATOR_CREDENTIAL_LIFETIME_DAYS: '30',
        OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS: '180',
        OPERATOR_LIVE_CREDENTIALS_MAX: '2',
        AGENT_CREDENTIAL_LIFETIME_DAYS: '30',
      }),
    ).toMatchObject({
      apiSecretOverlapHours: 2,
      operatorCredentialLifetimeDays: 30,
      operatorCredentialLifetimeMaxDays: 180,
      operatorLiveCredentialsMax: 2,
      agentCredentialLifetimeDays: 30,
    });
  });

  it('defaults the operator lifetime to a configured maximum below 90 days, and refuses a default above the maximum', () => {
    expect(loadGatewayConfig({ ...minimal, OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS: '30' })).toMatchObject({
      operatorCredentialLifetimeDays: 30,
      operatorCredentialLifetimeMaxDays: 30,
    });
    expect(() => loadGatewayConfig({ ...minimal, OPERATOR_CREDENTIAL_LIFETIME_DAYS: '120' })).toThrow(
      /OPERATOR_CREDENTIAL_LIFETIME_DAYS \(120\) may not exceed OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS \(90\)/,
    );
  });

  it.each([
    ['API_SECRET_OVERLAP_HOURS', '169'],
    ['OPERATOR_CREDENTIAL_LIFETIME_DAYS', '0'],
    ['OPERATOR_CREDENTIAL_LIFETIME_DAYS', '367'],
    ['OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS', '367'],
    ['OPERATOR_LIVE_CREDENTIALS_MAX', '0'],
    ['AGENT_CREDENTIAL_LIFETIME_DAYS', '0'],
    ['AGENT_CREDENTIAL_LIFETIME_DAYS', '367'],
  ])('refuses %s=%s', (name, value) => {
    expect(() => loadGatewayConfig({ ...minimal, [name]: value })).toThrow(new RegExp(name));
  });
});

describe('gateway config: rate limits and callback ports', () => {
  const minimal = {
    GATEWAY_DATABASE_URL: 'postgres://gw@127.0.0.1:5432/gateway',
    KAFKA_BROKERS: '127.0.0.1:9092',
    MERCHANT_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'),
    ...SERVICE_KEYS.environmentOf('gateway'),
  };
  const problemsOf = (environment: Record<string, string>): string[] => {
    try {
      loadGatewayConfig(environment);
      return [];
    } catch (error) {
      if (!(error instanceof ConfigError)) throw error;
      return error.problems;
    }
  };

  it('has the documented defaults', () => {
    const config = loadGatewayConfig(minimal);
    expect(config.rateLimits).toEqual({
      merchant: { ratePerSecond: 100, burst: 200 },
      address: { ratePerSecond: 20, burst: 100 },
      authFailures: { ratePerSecond: 2, burst: 60 },
    });
    expect(config.callbackAllowedPorts).toEqual([
      [443, 443],
      [8443, 8443],
    ]);
  });

  it('refuses a zero rate or burst and a port list that is not one, naming them', () => {
    const problems = problemsOf({
      ...minimal,
      GATEWAY_RATE_LIMIT_MERCHANT_BURST: '0',
      GATEWAY_RATE_LIMIT_ADDRESS_PER_SECOND: 'fast',
      CALLBACK_ALLOWED_PORTS: '443,70000',
    }).join('\n');
    for (const name of ['GATEWAY_RATE_LIMIT_MERCHANT_BURST', 'GATEWAY_RATE_LIMIT_ADDRESS_PER_SECOND', 'CALLBACK_ALLOWED_PORTS: "70000"'])
      expect(problems).toContain(name);
  });
});

describe('gateway config: the console', () => {
  const minimal = {
    GATEWAY_DATABASE_URL: 'postgres://gateway@127.0.0.1:5432/gateway',
    KAFKA_BROKERS: '127.0.0.1:9092',
    MERCHANT_SECRETS_MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
    ...SERVICE_KEYS.environmentOf('gateway'),
  };

  it('serves the built bundle with 30-minute idle and 12-hour sessions by default', () => {
    expect(loadGatewayConfig(minimal).console).toEqual({ assetsDir: `${process.cwd()}/dist/apps/console/public`, sessionIdleMinutes: 30, sessionMaxHours: 12 });
  });

  it('refuses to start with a session that would idle longer than it lives', () => {
    expect(() => loadGatewayConfig({ ...minimal, CONSOLE_SESSION_IDLE_MINUTES: '90', CONSOLE_SESSION_MAX_HOURS: '1' })).toThrow(
      /CONSOLE_SESSION_IDLE_MINUTES must not exceed CONSOLE_SESSION_MAX_HOURS/,
    );
  });
});
