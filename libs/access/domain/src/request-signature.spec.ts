import { createHmac, randomBytes } from 'node:crypto';
import { canonicalSignedPath, checkTimestamp, computeSignature, MalformedPathError, signaturesMatch } from './request-signature';
import { SecretBox } from '@mp/shared-util-secret-box';

describe('canonicalSignedPath', () => {
  it.each([
    ['/v2/payments/incoming', '/v2/payments/incoming'],
    ['/v2/payments/status/A%3A1', '/v2/payments/status/A:1'],
    ['/v2/payments/status/A:1', '/v2/payments/status/A:1'],
    ['/v2/payments/status/A%2F1', '/v2/payments/status/A%2F1'],
    ['/v2/payments/status/A%2f1', '/v2/payments/status/A%2f1'],
    ['/v2/payments/status/A%252F1', '/v2/payments/status/A%2F1'],
    ['/v2/payments/status/x%3Ay%2Fz?limit=1', '/v2/payments/status/x:y%2Fz'],
  ])('signs %s as %s', (raw, signed) => {
    expect(canonicalSignedPath(raw)).toBe(signed);
  });

  it('refuses malformed percent-encoding instead of crashing', () => {
    expect(() => canonicalSignedPath('/v2/payments/status/%E0%A4%A')).toThrow(MalformedPathError);
  });
});

describe('computeSignature', () => {
  it('is HMAC-SHA256 over timestamp.path.body in lower-case hex', () => {
    const body = Buffer.from('{"a":1}');
    const expected = createHmac('sha256', 'secret').update('1700000000./v2/x.{"a":1}').digest('hex');
    expect(computeSignature('secret', '1700000000', '/v2/x', body)).toBe(expected);
  });

  it('signs an empty body with a trailing dot', () => {
    const expected = createHmac('sha256', 'secret').update('1700000000./v2/merchant.').digest('hex');
    expect(computeSignature('secret', '1700000000', '/v2/merchant', Buffer.alloc(0))).toBe(expected);
  });
});

describe('signaturesMatch', () => {
  const good = computeSignature('secret', '1', '/p', Buffer.alloc(0));
  it('accepts the exact lower-case signature', () => expect(signaturesMatch(good, good)).toBe(true));
  it.each([
    ['upper case', good.toUpperCase()],
    ['63 characters', good.slice(1)],
    ['65 characters', `${good}0`],
    ['non-hex', `${good.slice(1)}z`],
    ['base64', Buffer.from(good, 'hex').toString('base64')],
    ['another signature', computeSignature('secret', '2', '/p', Buffer.alloc(0))],
    ['empty', ''],
  ])('rejects %s', (_name, presented) => expect(signaturesMatch(good, presented)).toBe(false));
});

describe('checkTimestamp', () => {
  const now = 1_800_000_000;
  it.each([0, 290, -290, 300, -300])('accepts a skew of %s s', (skew) => expect(checkTimestamp(String(now + skew), now)).toEqual({ ok: true }));
  it.each([301, -301, 310, -310])('rejects a skew of %s s', (skew) =>
    expect(checkTimestamp(String(now + skew), now)).toEqual({ ok: false, reason: 'out_of_range' }),
  );
  it.each(['1800000000000', '-1800000000', '1.8e9', '01800000000', ' 1800000000', '1800000000.0', ''])('rejects the malformed %p', (value) =>
    expect(checkTimestamp(value, now).ok).toBe(false),
  );
});

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));
  it('opens what it sealed for the same owner', () => {
    expect(box.open(box.seal('sk_abc', 'merchant:1'), 'merchant:1')).toBe('sk_abc');
  });
  it('refuses a ciphertext moved to another owner', () => {
    expect(() => box.open(box.seal('sk_abc', 'merchant:1'), 'merchant:2')).toThrow();
  });
  it('refuses a master key of the wrong size', () => {
    expect(() => new SecretBox(randomBytes(16))).toThrow();
  });
});
