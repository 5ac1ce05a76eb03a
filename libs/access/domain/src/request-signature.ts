import { createHmac, timingSafeEqual } from 'node:crypto';

/** spec section 8: five minutes either side of the server's clock. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

export const AUTH_HEADERS = { apiKey: 'x-api-key', timestamp: 'x-timestamp', signature: 'x-signature' } as const;

const ENCODED_SLASH = /%2f/gi;
const LOWER_HEX_SHA256 = /^[0-9a-f]{64}$/;
// Integer Unix seconds: no sign, no fraction, no exponent, no leading zeros, at most 10 digits.
const UNIX_SECONDS = /^(0|[1-9]\d{0,9})$/;

export class MalformedPathError extends Error {
  constructor(path: string) {
    super(`path is not valid percent-encoded UTF-8: ${path.slice(0, 200)}`);
    this.name = 'MalformedPathError';
  }
}

/**
 * The path as it is signed (spec 5.2-5.3): no query string, every percent-encoded part
 * decoded except an encoded slash, which stays exactly as sent. `/v2/payments/status/A%3A1`
 * is signed as `/v2/payments/status/A:1`; `/v2/payments/status/A%2F1` as itself.
 */
export function canonicalSignedPath(rawUrl: string): string {
  const queryStart = rawUrl.indexOf('?');
  const path = queryStart === -1 ? rawUrl : rawUrl.slice(0, queryStart);
  try {
    // Split on encoded slashes so they survive decoding, then join them back unchanged.
    const slashes = path.match(ENCODED_SLASH) ?? [];
    return path
      .split(ENCODED_SLASH)
      .map((segment, index) => decodeURIComponent(segment) + (slashes[index] ?? ''))
      .join('');
  } catch {
    throw new MalformedPathError(path);
  }
}

/** `{unix_timestamp}.{path}.{body}` over raw bytes; an empty body leaves the trailing dot (spec 5.5). */
export function signedPayload(timestamp: string, path: string, rawBody: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${timestamp}.${path}.`, 'utf8'), rawBody]);
}

export function computeSignature(secret: Buffer | string, timestamp: string, path: string, rawBody: Buffer): string {
  return createHmac('sha256', secret).update(signedPayload(timestamp, path, rawBody)).digest('hex');
}

/** Constant-time comparison of a presented lower-case hex signature with the expected one. */
export function signaturesMatch(expectedHex: string, presented: string): boolean {
  if (!LOWER_HEX_SHA256.test(presented)) return false;
  const expected = Buffer.from(expectedHex, 'hex');
  const actual = Buffer.from(presented, 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export type TimestampCheck = { ok: true } | { ok: false; reason: 'malformed' | 'out_of_range' };

export function checkTimestamp(timestamp: string, nowSeconds: number): TimestampCheck {
  if (!UNIX_SECONDS.test(timestamp)) return { ok: false, reason: 'malformed' };
  const skewSeconds = Math.abs(nowSeconds - Number(timestamp));
  return skewSeconds <= TIMESTAMP_TOLERANCE_SECONDS ? { ok: true } : { ok: false, reason: 'out_of_range' };
}
