import { SIGNATURE_HEADERS, signatureOf, signedPath, signedPayload } from '@mp/merchant-sdk/signing';
import { timingSafeEqual } from 'node:crypto';

/** spec section 8: five minutes either side of the server's clock. */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;

/** The request headers that carry the signature: the merchant SDK's, since both sides must agree. */
export const AUTH_HEADERS = SIGNATURE_HEADERS;

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
 * The path as it is signed (docs/api/authentication.md), by the merchant SDK's rule
 * (libs/sdk/src/signing.ts), so that the signer merchants use and this verifier cannot drift
 * apart: no query string, every percent-escape decoded except an encoded slash. A path that is
 * not valid percent-encoded UTF-8 is a MalformedPathError.
 */
export function canonicalSignedPath(rawUrl: string): string {
  try {
    return signedPath(rawUrl);
  } catch {
    throw new MalformedPathError(rawUrl.split('?')[0]);
  }
}

/** `{unix_timestamp}.{path}.{body}` over raw bytes; an empty body leaves the trailing dot. */
export { signedPayload };

/** HMAC-SHA256 of the signed payload, lower-case hex: the signature the request should carry. */
export const computeSignature = signatureOf;

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
