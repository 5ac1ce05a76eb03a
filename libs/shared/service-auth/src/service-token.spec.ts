import { ConfigError, ConfigReader } from '@mp/shared-util-config';
import { SignJWT } from 'jose';
import { CompiledAccessPolicy } from './access-policy';
import { readServiceAuthConfig } from './service-auth.config';
import { requireActor, ServiceAuthenticator } from './service-authenticator';
import {
  formatPublicKeys,
  generateServiceKeyPair,
  parsePrivateKey,
  parsePublicKey,
  ServiceTokenIssuer,
  ServiceTokenVerifier,
  type ServiceName,
} from './service-token';

const gatewayKeys = generateServiceKeyPair();
const paymentsKeys = generateServiceKeyPair();
const publicKeys = new Map<ServiceName, Array<ReturnType<typeof parsePublicKey>>>([
  ['gateway', [parsePublicKey(gatewayKeys.publicKey)]],
  ['payments', [parsePublicKey(paymentsKeys.publicKey)]],
]);
const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('service tokens', () => {
  it('verifies a token of a known caller for this audience, with its actor', async () => {
    const issuer = new ServiceTokenIssuer('gateway', parsePrivateKey(gatewayKeys.privateKey), () => T0);
    const verifier = new ServiceTokenVerifier('ledger', publicKeys, () => T0 + 1_000);
    await expect(verifier.verify(await issuer.authorization('ledger', { type: 'operator', id: 'op_1' }))).resolves.toEqual({
      service: 'gateway',
      actor: { type: 'operator', id: 'op_1' },
    });
    await expect(verifier.verify(await issuer.authorization('ledger'))).resolves.toEqual({ service: 'gateway', actor: null });
  });

  it('signs once per callee and actor while the token is fresh, and a new one before it expires', async () => {
    let now = T0;
    const issuer = new ServiceTokenIssuer('gateway', parsePrivateKey(gatewayKeys.privateKey), () => now);
    const first = await issuer.authorization('ledger');
    expect(await issuer.authorization('ledger')).toBe(first);
    expect(await issuer.authorization('payments')).not.toBe(first);
    expect(await issuer.authorization('ledger', { type: 'operator', id: 'op_1' })).not.toBe(first);
    now = T0 + 41_000;
    expect(await issuer.authorization('ledger')).not.toBe(first);
  });

  it.each([
    ['no header', undefined, 'no service token'],
    ['not a bearer', 'Basic abc', 'not a bearer token'],
    ['garbage', 'Bearer not.a.jwt', 'malformed token'],
  ])('refuses %s', async (_name, header, reason) => {
    await expect(new ServiceTokenVerifier('ledger', publicKeys).verify(header)).rejects.toMatchObject({ reason });
  });

  it('refuses an expired token, also one it verified before', async () => {
    let now = T0;
    const issuer = new ServiceTokenIssuer('gateway', parsePrivateKey(gatewayKeys.privateKey), () => T0);
    const verifier = new ServiceTokenVerifier('ledger', publicKeys, () => now);
    const header = await issuer.authorization('ledger');
    await verifier.verify(header);
    now = T0 + 70_000;
    await expect(verifier.verify(header)).rejects.toMatchObject({ reason: 'token expired' });
    await expect(new ServiceTokenVerifier('ledger', publicKeys, () => now).verify(header)).rejects.toMatchObject({ reason: 'token expired' });
  });

  it('refuses a token for another audience', async () => {
    const issuer = new ServiceTokenIssuer('gateway', parsePrivateKey(gatewayKeys.privateKey), () => T0);
    await expect(new ServiceTokenVerifier('ledger', publicKeys, () => T0).verify(await issuer.authorization('payments'))).rejects.toMatchObject({
      reason: expect.stringContaining('aud'),
    });
  });

  it('refuses a token signed by another key than its issuer claims (kid gateway, payments key)', async () => {
    const forged = new ServiceTokenIssuer('gateway', parsePrivateKey(paymentsKeys.privateKey), () => T0);
    await expect(new ServiceTokenVerifier('ledger', publicKeys, () => T0).verify(await forged.authorization('ledger'))).rejects.toMatchObject({
      reason: 'bad signature for gateway',
    });
  });

  it('refuses an issuer without a configured key, a long-lived token and an iss that differs from kid', async () => {
    const verifier = new ServiceTokenVerifier('ledger', publicKeys, () => T0);
    const disputes = new ServiceTokenIssuer('disputes', parsePrivateKey(generateServiceKeyPair().privateKey), () => T0);
    await expect(verifier.verify(await disputes.authorization('ledger'))).rejects.toMatchObject({ reason: 'no public key configured for disputes' });
    const iat = T0 / 1000;
    const key = parsePrivateKey(gatewayKeys.privateKey);
    const longLived = await new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA', kid: 'gateway' })
      .setIssuer('gateway')
      .setAudience('ledger')
      .setIssuedAt(iat - 600)
      .setExpirationTime(iat + 3600)
      .sign(key);
    await expect(verifier.verify(`Bearer ${longLived}`)).rejects.toMatchObject({ reason: expect.stringContaining('iat') });
    const otherIssuer = await new SignJWT({})
      .setProtectedHeader({ alg: 'EdDSA', kid: 'gateway' })
      .setIssuer('payments')
      .setAudience('ledger')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .sign(key);
    await expect(verifier.verify(`Bearer ${otherIssuer}`)).rejects.toMatchObject({ reason: expect.stringContaining('iss') });
    const badActor = await new SignJWT({ act: { type: 'merchant', id: 'm' } })
      .setProtectedHeader({ alg: 'EdDSA', kid: 'gateway' })
      .setIssuer('gateway')
      .setAudience('ledger')
      .setIssuedAt(iat)
      .setExpirationTime(iat + 60)
      .sign(key);
    await expect(verifier.verify(`Bearer ${badActor}`)).rejects.toMatchObject({ reason: 'malformed act claim' });
  });
});

describe('allow-list', () => {
  const policy = new CompiledAccessPolicy({ gateway: ['GET /internal/merchants/:merchantId/balances'], payments: ['POST /internal/holds'] });

  it('allows only the routes listed for the caller; HEAD as GET', () => {
    expect(policy.decide('gateway', 'GET', '/internal/merchants/:merchantId/balances')).toEqual({ allowed: true });
    expect(policy.decide('gateway', 'HEAD', '/internal/merchants/:merchantId/balances')).toEqual({ allowed: true });
    expect(policy.decide('gateway', 'POST', '/internal/holds')).toEqual({ allowed: false, reason: 'gateway may not call POST /internal/holds' });
    expect(policy.decide('payments', 'GET', '/internal/merchants/:merchantId/balances').allowed).toBe(false);
    expect(policy.decide('disputes', 'POST', '/internal/holds')).toEqual({ allowed: false, reason: 'disputes may call no route of this service' });
  });

  it('rejects a malformed rule when built', () => {
    expect(() => new CompiledAccessPolicy({ gateway: ['/internal/holds'] })).toThrow(/METHOD \/path/);
  });
});

describe('authenticator and actor', () => {
  const authenticator = new ServiceAuthenticator(
    { service: 'ledger', publicKeys },
    { gateway: ['POST /internal/merchants/:merchantId/deposit-adjustments'], payments: ['POST /internal/holds'] },
    () => T0,
  );
  const gateway = new ServiceTokenIssuer('gateway', parsePrivateKey(gatewayKeys.privateKey), () => T0);
  const payments = new ServiceTokenIssuer('payments', parsePrivateKey(paymentsKeys.privateKey), () => T0);

  it('answers 401 UNAUTHENTICATED without a valid token and 403 FORBIDDEN for a route not allowed to the caller', async () => {
    await expect(authenticator.authorize('POST', '/internal/holds', undefined)).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    await expect(
      authenticator.authorize('POST', '/internal/merchants/:merchantId/deposit-adjustments', await payments.authorization('ledger')),
    ).rejects.toMatchObject({ code: 'FORBIDDEN' });
    await expect(authenticator.authorize('POST', '/internal/holds', await payments.authorization('ledger'))).resolves.toEqual({
      service: 'payments',
      actor: null,
    });
  });

  it('takes the actor from the token; a body naming another actor is refused', async () => {
    const caller = await authenticator.authorize(
      'POST',
      '/internal/merchants/:merchantId/deposit-adjustments',
      await gateway.authorization('ledger', { type: 'operator', id: 'op_1' }),
    );
    expect(requireActor(caller, ['operator'], { id: 'op_1' })).toEqual({ type: 'operator', id: 'op_1' });
    expect(requireActor(caller, ['operator'])).toEqual({ type: 'operator', id: 'op_1' });
    expect(() => requireActor(caller, ['operator'], { id: 'op_2' })).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(() => requireActor(caller, ['agent'])).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(() => requireActor({ service: 'gateway', actor: null }, ['operator'])).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    expect(() => requireActor(undefined, ['operator'])).toThrow(expect.objectContaining({ code: 'UNAUTHENTICATED' }));
  });
});

describe('configuration', () => {
  const read = (environment: Record<string, string>) => {
    const reader = new ConfigReader(environment);
    const config = readServiceAuthConfig(reader, 'ledger', ['gateway', 'payments', 'test-harness']);
    reader.assertValid();
    return config;
  };

  it('reads the private key and the callers’ public keys', () => {
    const config = read({
      SERVICE_TOKEN_PRIVATE_KEY: generateServiceKeyPair().privateKey,
      SERVICE_TOKEN_PUBLIC_KEYS: formatPublicKeys({ gateway: gatewayKeys.publicKey, payments: paymentsKeys.publicKey }),
    });
    expect([...config.publicKeys.keys()]).toEqual(['gateway', 'payments']);
  });

  it('refuses to boot without keys, with a bad key or without a caller’s key, naming each problem', () => {
    expect(() => read({})).toThrow(ConfigError);
    expect(() => read({})).toThrow(/SERVICE_TOKEN_PRIVATE_KEY is required[\s\S]*SERVICE_TOKEN_PUBLIC_KEYS is required/);
    expect(() => read({ SERVICE_TOKEN_PRIVATE_KEY: 'bm90IGEga2V5', SERVICE_TOKEN_PUBLIC_KEYS: `gateway:${gatewayKeys.publicKey},bank:xyz` })).toThrow(
      /SERVICE_TOKEN_PRIVATE_KEY is not a usable key[\s\S]*"bank" is not a service name[\s\S]*lacks the public key of payments/,
    );
  });
});

describe("rotating a caller's key", () => {
  const configured = (publicKeys: string) => {
    const reader = new ConfigReader({ SERVICE_TOKEN_PRIVATE_KEY: generateServiceKeyPair().privateKey, SERVICE_TOKEN_PUBLIC_KEYS: publicKeys });
    const config = readServiceAuthConfig(reader, 'ledger', ['gateway', 'payments']);
    reader.assertValid();
    return new ServiceTokenVerifier('ledger', config.publicKeys, () => T0);
  };
  const nextGatewayKeys = generateServiceKeyPair();
  const signedWithOldKey = () => new ServiceTokenIssuer('gateway', parsePrivateKey(gatewayKeys.privateKey), () => T0).authorization('ledger');
  const signedWithNewKey = () => new ServiceTokenIssuer('gateway', parsePrivateKey(nextGatewayKeys.privateKey), () => T0).authorization('ledger');

  it('accepts tokens of the old and the new key while the callee lists both, so no call is refused during the rollout', async () => {
    const overlap = configured(`gateway:${gatewayKeys.publicKey},gateway:${nextGatewayKeys.publicKey},payments:${paymentsKeys.publicKey}`);
    await expect(overlap.verify(await signedWithOldKey())).resolves.toEqual({ service: 'gateway', actor: null });
    await expect(overlap.verify(await signedWithNewKey())).resolves.toEqual({ service: 'gateway', actor: null });
  });

  it('refuses the old key once it is removed, and still refuses a key of another caller', async () => {
    const rotated = configured(`gateway:${nextGatewayKeys.publicKey},payments:${paymentsKeys.publicKey}`);
    await expect(rotated.verify(await signedWithOldKey())).rejects.toMatchObject({ reason: 'bad signature for gateway' });
    await expect(rotated.verify(await signedWithNewKey())).resolves.toEqual({ service: 'gateway', actor: null });
    const overlap = configured(`gateway:${gatewayKeys.publicKey},gateway:${nextGatewayKeys.publicKey},payments:${paymentsKeys.publicKey}`);
    const paymentsPosingAsGateway = new ServiceTokenIssuer('gateway', parsePrivateKey(paymentsKeys.privateKey), () => T0);
    await expect(overlap.verify(await paymentsPosingAsGateway.authorization('ledger'))).rejects.toMatchObject({ reason: 'bad signature for gateway' });
  });

  it('refuses more than two keys for one caller: a rotation needs the current and the next one only', () => {
    const third = generateServiceKeyPair().publicKey;
    expect(() =>
      configured(`gateway:${gatewayKeys.publicKey},gateway:${nextGatewayKeys.publicKey},gateway:${third},payments:${paymentsKeys.publicKey}`),
    ).toThrow(/SERVICE_TOKEN_PUBLIC_KEYS lists 3 keys for gateway/);
  });
});
