import { createParamDecorator, Inject, Injectable, type CanActivate, type ExecutionContext } from '@nestjs/common';
import { AUTH_HEADERS, canonicalSignedPath, checkTimestamp, computeSignature, MalformedPathError, MERCHANT_ID_PATTERN, signaturesMatch } from '@mp/access-domain';
import { MerchantCredentialStore } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';
import type { FastifyRequest } from 'fastify';

export interface AuthenticatedMerchant {
  merchantId: string;
}

export type GatewayRequest = FastifyRequest & { requestId?: string; merchant?: AuthenticatedMerchant };

// Used when the key is unknown, so that an unknown key costs the same HMAC work as a known one
// and key ids cannot be told apart by timing.
const UNKNOWN_KEY_SECRET = Buffer.alloc(32, 0);
const JSON_MEDIA_TYPE = /^application\/json\s*(;|$)/i;

/**
 * Authenticates a /v2 request exactly as spec section 5 describes. The body size limit has
 * already been enforced by the HTTP server, before any of this work.
 */
@Injectable()
export class MerchantSignatureGuard implements CanActivate {
  constructor(@Inject(MerchantCredentialStore) private readonly credentials: MerchantCredentialStore) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<GatewayRequest>();
    const rawBody = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
    assertJsonMediaType(request, rawBody);

    const apiKey = request.headers[AUTH_HEADERS.apiKey];
    const timestamp = request.headers[AUTH_HEADERS.timestamp];
    const signature = request.headers[AUTH_HEADERS.signature];
    const missing = Object.values(AUTH_HEADERS).filter((name) => typeof request.headers[name] !== 'string' || request.headers[name] === '');
    if (missing.length > 0 || typeof apiKey !== 'string' || typeof timestamp !== 'string' || typeof signature !== 'string') {
      throw new DomainError('MISSING_AUTH_HEADER', `Missing authentication header: ${missing.join(', ')}`, missing.map((name) => ({ field: name, issue: 'is required' })));
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
      if (error instanceof MalformedPathError) throw new DomainError('VALIDATION_ERROR', 'The request path is not valid percent-encoded UTF-8', [{ field: 'path', issue: 'malformed percent-encoding' }]);
      throw error;
    }

    const credentials = MERCHANT_ID_PATTERN.test(apiKey) ? await this.credentials.findCredentials(apiKey) : null;
    const expected = computeSignature(credentials?.apiSecret ?? UNKNOWN_KEY_SECRET, timestamp, signedPath, rawBody);
    if (!credentials || credentials.status !== 'active') {
      throw new DomainError('INVALID_API_KEY', 'The x-api-key is not an active merchant id', [{ field: AUTH_HEADERS.apiKey, issue: 'unknown or inactive' }]);
    }
    if (!signaturesMatch(expected, signature)) {
      throw new DomainError('INVALID_SIGNATURE', 'The signature does not match: sign "{x-timestamp}.{decoded path}.{raw body}" with HMAC-SHA256 in lower-case hex', [
        { field: AUTH_HEADERS.signature, issue: 'does not match' },
      ]);
    }
    request.merchant = { merchantId: credentials.merchantId };
    return true;
  }
}

function assertJsonMediaType(request: GatewayRequest, rawBody: Buffer): void {
  if (rawBody.length === 0) return;
  const contentType = request.headers['content-type'];
  if (typeof contentType !== 'string' || !JSON_MEDIA_TYPE.test(contentType)) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Request bodies must be sent as application/json', [{ field: 'content-type', issue: 'must be application/json' }]);
  }
}

/** The merchant the guard authenticated. */
export const CurrentMerchant = createParamDecorator((_data: unknown, context: ExecutionContext): AuthenticatedMerchant => {
  const merchant = context.switchToHttp().getRequest<GatewayRequest>().merchant;
  if (!merchant) throw new Error('invariant: CurrentMerchant used on a route without MerchantSignatureGuard');
  return merchant;
});
