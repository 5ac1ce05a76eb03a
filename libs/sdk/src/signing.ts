import { createHmac } from 'node:crypto';

/** The request headers that carry the signature (docs/api/authentication.md). */
export const SIGNATURE_HEADERS = { apiKey: 'x-api-key', timestamp: 'x-timestamp', signature: 'x-signature' } as const;

const ENCODED_SLASH = /%2f/gi;

/**
 * The path as it is signed: no query string, every percent-escape decoded except an encoded
 * slash, which stays exactly as sent. `/v2/payments/status/shop%2F2026%3A17` is signed as
 * `/v2/payments/status/shop%2F2026:17`.
 */
export function signedPath(wirePath: string): string {
  const queryStart = wirePath.indexOf('?');
  const path = queryStart === -1 ? wirePath : wirePath.slice(0, queryStart);
  const slashes = path.match(ENCODED_SLASH) ?? [];
  return path
    .split(ENCODED_SLASH)
    .map((segment, index) => decodeURIComponent(segment) + (slashes[index] ?? ''))
    .join('');
}

/** One path segment for an id (`order_id`, `dispute_id`, ...): `/` becomes `%2F`, `:` `%3A`, as the server expects. */
export function pathSegment(id: string): string {
  return encodeURIComponent(id);
}

export interface SignatureInput {
  /** The API secret, `sk_...`: the whole string is the HMAC key. */
  secret: string;
  /** Unix seconds, as sent in `x-timestamp`. */
  timestamp: string;
  /** The path as sent on the wire (percent-encoded). */
  wirePath: string;
  /** The exact body bytes that go on the wire; empty for a GET. */
  body: Buffer | string;
}

export interface RequestSignature {
  signedPath: string;
  /** `{timestamp}.{signed path}.{body}` as UTF-8 text (the HMAC runs over its bytes). */
  signedString: string;
  /** 64 lower-case hex digits. */
  signature: string;
}

/** `{timestamp}.{signed path}.{body}` as bytes: what the HMAC runs over. An empty body keeps the trailing dot. */
export function signedPayload(timestamp: string, path: string, body: Buffer | string): Buffer {
  return Buffer.concat([Buffer.from(`${timestamp}.${path}.`, 'utf8'), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);
}

/** HMAC-SHA256 of the signed payload, keyed by the whole secret, as 64 lower-case hex digits. `path` is already the signed path. */
export function signatureOf(secret: Buffer | string, timestamp: string, path: string, body: Buffer | string): string {
  return createHmac('sha256', secret)
    .update(signedPayload(timestamp, path, body))
    .digest('hex');
}

/**
 * Signs one request as the gateway verifies it: HMAC-SHA256 over the raw bytes, lower-case hex.
 * This module is the one signing rule of the platform: the gateway's verifier (libs/access/domain),
 * the console, the test clients, the benchmark and the scripts in tools/ and deploy/ all use it.
 */
export function signRequest({ secret, timestamp, wirePath, body }: SignatureInput): RequestSignature {
  const path = signedPath(wirePath);
  const payload = signedPayload(timestamp, path, body);
  return { signedPath: path, signedString: payload.toString('utf8'), signature: createHmac('sha256', secret).update(payload).digest('hex') };
}

/** The three authentication headers of one request signed now. */
export function signatureHeaders(merchantId: string, secret: string, wirePath: string, body: Buffer | string, nowMs = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1_000));
  const { signature } = signRequest({ secret, timestamp, wirePath, body });
  return { [SIGNATURE_HEADERS.apiKey]: merchantId, [SIGNATURE_HEADERS.timestamp]: timestamp, [SIGNATURE_HEADERS.signature]: signature };
}
