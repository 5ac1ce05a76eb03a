import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT } from 'jose';

/** The services that call or are called over internal HTTP; `test-harness` is the tests' own identity, configured nowhere else. */
export const SERVICE_NAMES = ['gateway', 'payments', 'ledger', 'withdrawals', 'disputes', 'callbacks', 'test-harness'] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];
export const isServiceName = (value: unknown): value is ServiceName => typeof value === 'string' && (SERVICE_NAMES as readonly string[]).includes(value);

/** Who, behind the calling service, does an operator or agent action: the back-office principal the gateway authenticated. */
export interface ServiceActor {
  type: 'operator' | 'agent';
  id: string;
}

/** A caller whose token verified: the service, and for back-office actions the actor it vouches for. */
export interface VerifiedCaller {
  service: ServiceName;
  actor: ServiceActor | null;
}

/** Why a token was refused; logged by the callee, never sent back in detail. */
export class ServiceTokenRefusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ServiceTokenRefusal';
  }
}

const ALGORITHM = 'EdDSA';
export const SERVICE_TOKEN_LIFETIME_SECONDS = 60;
/** A caller swaps its token this long before it expires, so a token is never presented in its last seconds. */
const REFRESH_MARGIN_SECONDS = 20;
/** Tokens claiming a longer life are refused, whatever their exp says: a leaked token is worth minutes at most. */
const MAX_TOKEN_AGE_SECONDS = 120;
const CLOCK_TOLERANCE_SECONDS = 5;
/** Bounds both caches: a caller mints one token per callee and actor; a callee sees one per caller and actor per minute. */
const CACHE_LIMIT = 10_000;

export function parsePrivateKey(base64: string): KeyObject {
  const key = createPrivateKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'pkcs8' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an Ed25519 key is required, got ${key.asymmetricKeyType}`);
  return key;
}

export function parsePublicKey(base64: string): KeyObject {
  const key = createPublicKey({ key: Buffer.from(base64, 'base64'), format: 'der', type: 'spki' });
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`an Ed25519 key is required, got ${key.asymmetricKeyType}`);
  return key;
}

/** A fresh key pair as the configuration takes it: base64 of the PKCS#8 (private) and SPKI (public) DER encodings. */
export function generateServiceKeyPair(): { privateKey: string; publicKey: string } {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}

/** SERVICE_TOKEN_PUBLIC_KEYS' format: `gateway:<base64>,ledger:<base64>`. */
export function formatPublicKeys(keys: Partial<Record<ServiceName, string>>): string {
  return Object.entries(keys)
    .map(([service, key]) => `${service}:${key}`)
    .join(',');
}

type Clock = () => number;

/**
 * The caller's side: short-lived tokens signed with its own private key, one per callee and
 * actor, kept until shortly before they expire. Signing is the expensive part (an Ed25519
 * signature), so a busy caller signs about once a minute per callee, not once per request.
 */
export class ServiceTokenIssuer {
  private readonly cache = new Map<string, { token: Promise<string>; refreshAtMs: number }>();

  constructor(
    readonly service: ServiceName,
    private readonly privateKey: KeyObject,
    private readonly now: Clock = Date.now,
  ) {}

  /** The `Authorization` header value for a call to `audience`, on behalf of `actor` when the call is an operator's or agent's action. */
  async authorization(audience: ServiceName, actor: ServiceActor | null = null): Promise<string> {
    const cacheKey = actor ? `${audience}|${actor.type}|${actor.id}` : audience;
    const nowMs = this.now();
    const cached = this.cache.get(cacheKey);
    if (cached && nowMs < cached.refreshAtMs) return `Bearer ${await cached.token}`;
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    const issuedAt = Math.floor(nowMs / 1000);
    const token = this.sign(audience, actor, issuedAt);
    this.cache.set(cacheKey, { token, refreshAtMs: (issuedAt + SERVICE_TOKEN_LIFETIME_SECONDS - REFRESH_MARGIN_SECONDS) * 1000 });
    // A failed signature must not stay cached.
    token.catch(() => this.cache.delete(cacheKey));
    return `Bearer ${await token}`;
  }

  private sign(audience: ServiceName, actor: ServiceActor | null, issuedAt: number): Promise<string> {
    return new SignJWT(actor ? { act: { type: actor.type, id: actor.id } } : {})
      .setProtectedHeader({ alg: ALGORITHM, kid: this.service, typ: 'JWT' })
      .setIssuer(this.service)
      .setAudience(audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + SERVICE_TOKEN_LIFETIME_SECONDS)
      .sign(this.privateKey);
  }
}

const badSignature = (issuer: ServiceName) => `bad signature for ${issuer}`;

const actorOf = (claim: unknown): ServiceActor | null => {
  if (claim === undefined) return null;
  const act = claim as { type?: unknown; id?: unknown } | null;
  if (act && (act.type === 'operator' || act.type === 'agent') && typeof act.id === 'string' && act.id.length > 0 && act.id.length <= 128)
    return { type: act.type, id: act.id };
  throw new ServiceTokenRefusal('malformed act claim');
};

/**
 * The callee's side: checks the signature with the issuer's public key (kid names the issuer,
 * and must equal iss), the audience (this service), the lifetime and the expiry. A token that
 * verified is remembered until it expires, so a caller's repeated token costs a map lookup.
 * While a caller's key is rotated the callee has two keys for it, and a token signed with either
 * verifies: the callee tries them in order, so a token of the second key costs one more
 * signature check, once per token.
 */
export class ServiceTokenVerifier {
  private readonly verified = new Map<string, { caller: VerifiedCaller; expiresAtMs: number }>();

  constructor(
    readonly service: ServiceName,
    private readonly publicKeys: ReadonlyMap<ServiceName, readonly KeyObject[]>,
    private readonly now: Clock = Date.now,
  ) {}

  async verify(authorization: string | undefined): Promise<VerifiedCaller> {
    if (!authorization) throw new ServiceTokenRefusal('no service token');
    const token = /^Bearer ([A-Za-z0-9_.-]{1,4096})$/.exec(authorization)?.[1];
    if (token === undefined) throw new ServiceTokenRefusal('not a bearer token');
    const nowMs = this.now();
    const known = this.verified.get(token);
    if (known) {
      if (nowMs < known.expiresAtMs) return known.caller;
      this.verified.delete(token);
      throw new ServiceTokenRefusal('token expired');
    }
    const caller = await this.verifyToken(token, nowMs);
    if (this.verified.size >= CACHE_LIMIT) this.verified.clear();
    this.verified.set(token, caller);
    return caller.caller;
  }

  private async verifyToken(token: string, nowMs: number): Promise<{ caller: VerifiedCaller; expiresAtMs: number }> {
    let issuer: ServiceName;
    try {
      const kid = decodeProtectedHeader(token).kid;
      if (!isServiceName(kid)) throw new ServiceTokenRefusal(`unknown issuer ${JSON.stringify(String(kid)).slice(0, 40)}`);
      issuer = kid;
    } catch (error) {
      throw error instanceof ServiceTokenRefusal ? error : new ServiceTokenRefusal('malformed token');
    }
    const keys = this.publicKeys.get(issuer) ?? [];
    if (keys.length === 0) throw new ServiceTokenRefusal(`no public key configured for ${issuer}`);
    for (const key of keys.slice(0, -1)) {
      try {
        return await this.verifyWith(token, key, issuer, nowMs);
      } catch (error) {
        // The issuer's other key may have signed it; any other refusal would be the same with every key.
        if (!(error instanceof ServiceTokenRefusal && error.reason === badSignature(issuer))) throw error;
      }
    }
    return this.verifyWith(token, keys[keys.length - 1], issuer, nowMs);
  }

  private async verifyWith(token: string, key: KeyObject, issuer: ServiceName, nowMs: number): Promise<{ caller: VerifiedCaller; expiresAtMs: number }> {
    try {
      const { payload } = await jwtVerify(token, key, {
        algorithms: [ALGORITHM],
        issuer,
        audience: this.service,
        requiredClaims: ['iss', 'aud', 'iat', 'exp'],
        maxTokenAge: MAX_TOKEN_AGE_SECONDS,
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: new Date(nowMs),
      });
      // requiredClaims made sure exp is there.
      return { caller: { service: issuer, actor: actorOf(payload['act']) }, expiresAtMs: Number(payload.exp) * 1000 };
    } catch (error) {
      if (error instanceof ServiceTokenRefusal) throw error;
      if (error instanceof joseErrors.JWTExpired)
        throw new ServiceTokenRefusal(error.claim === 'exp' ? 'token expired' : `token older than ${MAX_TOKEN_AGE_SECONDS} s (iat)`);
      if (error instanceof joseErrors.JWTClaimValidationFailed) throw new ServiceTokenRefusal(`claim ${error.claim} ${error.reason}`);
      if (error instanceof joseErrors.JWSSignatureVerificationFailed) throw new ServiceTokenRefusal(badSignature(issuer));
      throw new ServiceTokenRefusal('malformed token');
    }
  }
}
