import { createHash } from 'node:crypto';
import { createParamDecorator, Inject, Injectable, SetMetadata, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import {
  AUTH_HEADERS,
  canonicalSignedPath,
  checkTimestamp,
  computeSignature,
  MalformedPathError,
  MERCHANT_ID_PATTERN,
  secretsValidAt,
  signaturesMatch,
  TIMESTAMP_TOLERANCE_SECONDS,
} from '@mp/access-domain';
import { MerchantCredentialStore, RequestSignatureStore, type MerchantCredentials } from '@mp/access-infrastructure';
import type { Clock } from '@mp/shared-util-clock';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { CLOCK } from '../gateway-settings';

export interface AuthenticatedMerchant {
  merchantId: string;
}

export type GatewayRequest = FastifyRequest & { requestId?: string; merchant?: AuthenticatedMerchant };

// Used when the key is unknown, so that an unknown key costs the same HMAC work as a known one
// and key ids cannot be told apart by timing.
const UNKNOWN_KEY_SECRET = Buffer.alloc(32, 0);
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

const REFUSES_REPLAY = 'mp:refuses-replayed-signature';
/**
 * A signature that does not match re-reads the merchant's secrets (one may have rotated on
 * another replica) at most this often per merchant: forged requests for a known merchant id
 * cannot each cost a database read.
 */
const CREDENTIAL_REFRESH_INTERVAL_MS = 1_000;
/** Merchants whose last refresh this replica remembers; past it, the oldest is forgotten. */
const REFRESHED_MERCHANTS_MAX = 10_000;

/**
 * On a merchant route that changes something and is not idempotent by an order_id (a secret
 * rotation, a merchant setting, a webhook tool): a second request with the same signature is a
 * captured request replayed, and is refused with 409 REQUEST_REPLAYED (docs/api/authentication.md,
 * "Replays"). Creates are left out: a retry with the same order_id answers as the first did.
 */
export const RefusesReplay = (): MethodDecorator => SetMetadata(REFUSES_REPLAY, true);

/**
 * Authenticates a /v2 request exactly as spec section 5 describes. The body size limit has
 * already been enforced by the HTTP server, before any of this work.
 */
@Injectable()
export class MerchantSignatureGuard implements CanActivate {
  /** By merchant id: when this replica last re-read its secrets after a mismatch (insertion order = age). */
  private readonly lastRefreshAt = new Map<string, number>();

  constructor(
    @Inject(MerchantCredentialStore) private readonly credentials: MerchantCredentialStore,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(RequestSignatureStore) private readonly signatures: RequestSignatureStore,
    private readonly reflector: Reflector,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<GatewayRequest>();
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    assertJsonMediaType(request, rawBody);

    const apiKey = request.headers[AUTH_HEADERS.apiKey];
    const timestamp = request.headers[AUTH_HEADERS.timestamp];
    const signature = request.headers[AUTH_HEADERS.signature];
    const missing = Object.values(AUTH_HEADERS).filter((name) => typeof request.headers[name] !== 'string' || request.headers[name] === '');
    if (missing.length > 0 || typeof apiKey !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') {
      throw new DomainError(
        'MISSING_AUTH_HEADER',
        `Missing authentication header: ${missing.join(', ')}`,
        missing.map((name) => ({ field: name, issue: 'is required' })),
      );
    }

    const nowSeconds = Math.floor(Date.now() / 1000);
    const timestampCheck = checkTimestamp(timestamp, nowSeconds);
    if (!timestampCheck.ok) {
      const issue = timestampCheck.reason === 'malformed' ? 'must be the current Unix time in whole seconds' : 'must be within 300 seconds of the server time';
      throw new DomainError('TIMESTAMP_OUT_OF_RANGE', `x-timestamp ${issue}`, [{ field: AUTH_HEADERS.timestamp, issue }], { server_time: nowSeconds });
    }

    let signedPath: string;
    try {
      signedPath = canonicalSignedPath(request.raw.url ?? request.url);
    } catch (error) {
      if (error instanceof MalformedPathError)
        throw new DomainError('VALIDATION_ERROR', 'The request path is not valid percent-encoded UTF-8', [
          { field: 'path', issue: 'malformed percent-encoding' },
        ]);
      throw error;
    }

    let credentials = MERCHANT_ID_PATTERN.test(apiKey) ? await this.credentials.findCredentials(apiKey) : null;
    if (!credentials) {
      // The same HMAC work as for a known key, so key ids cannot be told apart by timing.
      signaturesMatch(computeSignature(UNKNOWN_KEY_SECRET, timestamp, signedPath, rawBody), signature);
      throw new DomainError('INVALID_API_KEY', 'The x-api-key is not a merchant id', [{ field: AUTH_HEADERS.apiKey, issue: 'unknown' }]);
    }
    let matched = this.matches(credentials, timestamp, signedPath, rawBody, signature);
    if (!matched && this.mayRefresh(credentials.merchantId)) {
      // Perhaps a secret rotated on another replica after this one cached the old ones.
      const fresh = await this.credentials.findCredentials(credentials.merchantId, Date.now(), { refresh: true });
      if (fresh && this.matches(fresh, timestamp, signedPath, rawBody, signature)) {
        matched = true;
        credentials = fresh;
      }
    }
    if (!matched) {
      throw new DomainError(
        'INVALID_SIGNATURE',
        'The signature does not match: sign "{x-timestamp}.{decoded path}.{raw body}" with HMAC-SHA256 in lower-case hex',
        [{ field: AUTH_HEADERS.signature, issue: 'does not match' }],
        { server_signed: whatTheServerSigned(timestamp, signedPath, rawBody) },
      );
    }
    // Told only to whoever holds a valid secret: the merchant learns why, nobody else learns the status.
    if (credentials.status === 'suspended') {
      throw new DomainError('MERCHANT_SUSPENDED', 'An operator suspended this merchant account; payments already under way still settle', [
        { field: AUTH_HEADERS.apiKey, issue: 'suspended' },
      ]);
    }
    if (this.reflector.get<boolean>(REFUSES_REPLAY, context.getHandler()) === true) {
      // Kept until the signed timestamp leaves the window: no later request can carry it anyway.
      const expiresAt = new Date((Number(timestamp) + TIMESTAMP_TOLERANCE_SECONDS) * 1000);
      if (!(await this.signatures.firstUse(credentials.merchantId, signature, expiresAt))) {
        throw new DomainError(
          'REQUEST_REPLAYED',
          'This signed request was already received: a request that changes something is accepted once. Sign it again with the current time to send it again',
          [{ field: AUTH_HEADERS.signature, issue: 'already used' }],
        );
      }
      // Claimed before the work, so two copies sent at once cannot both pass; given back when the
      // request was refused, since a refused request changed nothing and may be sent again.
      const merchantId = credentials.merchantId;
      const response = context.switchToHttp().getResponse<FastifyReply>().raw;
      response.once('finish', () => {
        if (response.statusCode >= 400) void this.signatures.release(merchantId, signature).catch(() => undefined);
      });
    }
    request.merchant = { merchantId: credentials.merchantId };
    return true;
  }

  /** At most one re-read per merchant per CREDENTIAL_REFRESH_INTERVAL_MS; remembered in a bounded map. */
  private mayRefresh(merchantId: string): boolean {
    const now = Date.now();
    const last = this.lastRefreshAt.get(merchantId);
    if (last !== undefined && now - last < CREDENTIAL_REFRESH_INTERVAL_MS) return false;
    this.lastRefreshAt.delete(merchantId);
    this.lastRefreshAt.set(merchantId, now);
    if (this.lastRefreshAt.size > REFRESHED_MERCHANTS_MAX) this.lastRefreshAt.delete(this.lastRefreshAt.keys().next().value as string);
    return true;
  }

  /**
   * Checks the current secret and, while its overlap lasts by the gateway's clock, the one a
   * rotation replaced. The end is compared here on every request, never cached.
   */
  private matches(credentials: MerchantCredentials, timestamp: string, signedPath: string, rawBody: Buffer, signature: string): boolean {
    const candidates = secretsValidAt(
      [{ secret: credentials.apiSecret, validUntil: null }, ...(credentials.previousApiSecret ? [credentials.previousApiSecret] : [])],
      this.clock.now(),
    );
    // Every candidate is computed, without stopping at the first match, so timing does not tell which secret signed.
    return candidates.map((candidate) => signaturesMatch(computeSignature(candidate.secret, timestamp, signedPath, rawBody), signature)).includes(true);
  }
}

/**
 * What this server signed for a mismatched request, so a merchant can compare it with what
 * their client signed: the inputs as the server read them and the body's hash, never the
 * signature it expected (that would be an oracle for forging one) nor anything of the secret.
 * Only a known merchant's request gets here: an unknown key and a stale timestamp are refused
 * earlier with their own answers, which say no more than before.
 */
function whatTheServerSigned(timestamp: string, signedPath: string, rawBody: Buffer) {
  const bodySha256 = createHash('sha256').update(rawBody).digest('hex');
  return {
    timestamp,
    path: signedPath,
    body_bytes: rawBody.length,
    body_sha256: bodySha256,
    string_to_sign: `"${timestamp}.${signedPath}." followed by the ${rawBody.length} raw body bytes (SHA-256 ${bodySha256}), signed with HMAC-SHA256 and your API secret`,
  };
}

function assertJsonMediaType(request: GatewayRequest, rawBody: Buffer): void {
  if (rawBody.length === 0) return;
  const contentType = request.headers['content-type'];
  if (typeof contentType !== 'string' || !JSON_MEDIA_TYPE.test(contentType)) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be sent as application/json', [
      { field: 'content-type', issue: 'must be application/json' },
    ]);
  }
}

/** The merchant the guard authenticated. */
export const CurrentMerchant = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedMerchant => {
  const merchant = context.switchToHttp().getRequest<GatewayRequest>().merchant;
  if (!merchant) throw new Error('invariant: CurrentMerchant used on a route without MerchantSignatureGuard');
  return merchant;
});
