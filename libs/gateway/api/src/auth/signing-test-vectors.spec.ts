import type { ExecutionContext } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { canonicalSignedPath, signedPayload } from '@mp/access-domain';
import type { MerchantCredentialStore, MerchantCredentials, RequestSignatureStore } from '@mp/access-infrastructure';
import { DomainError } from '@mp/shared-util-errors';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MerchantSignatureGuard, type GatewayRequest } from './merchant-signature.guard';

interface SigningVector {
  name: string;
  secret: string;
  timestamp: string;
  method: string;
  wire_path: string;
  body: string;
  signed_path: string;
  signed_string: string;
  signature: string;
}

// The published file merchants test their clients against: the gateway must agree with every line of it.
const VECTORS_FILE = join(__dirname, '../../../../../docs/api/signing-test-vectors.json');
const { vectors } = JSON.parse(readFileSync(VECTORS_FILE, 'utf8')) as { vectors: SigningVector[] };
const MERCHANT_ID = 'mch_0123456789abcdef01234567';

/** The guard with one active merchant whose API secret is the vector's, and a request as Fastify hands it over. */
function authenticate(vector: SigningVector, signature: string): Promise<boolean> {
  const credentials: MerchantCredentials = {
    merchantId: MERCHANT_ID,
    status: 'active',
    apiSecret: Buffer.from(vector.secret, 'utf8'),
    previousApiSecret: null,
  };
  const store = { findCredentials: async (merchantId: string) => (merchantId === MERCHANT_ID ? credentials : null) } as unknown as MerchantCredentialStore;
  // The vectors sign reads and creates, which the replay check leaves alone: it is never asked.
  const signatures = { firstUse: async () => Promise.reject(new Error('not a route that refuses replays')) } as unknown as RequestSignatureStore;
  const guard = new MerchantSignatureGuard(store, { now: () => new Date(Number(vector.timestamp) * 1_000) }, signatures, new Reflector());
  const body = Buffer.from(vector.body, 'utf8');
  const request = {
    method: vector.method,
    url: vector.wire_path,
    raw: { url: vector.wire_path },
    body: body.length > 0 ? body : undefined,
    headers: {
      'x-api-key': MERCHANT_ID,
      'x-timestamp': vector.timestamp,
      'x-signature': signature,
      ...(body.length > 0 ? { 'content-type': 'application/json' } : {}),
    },
  } as unknown as GatewayRequest;
  const context = { switchToHttp: () => ({ getRequest: () => request }), getHandler: () => authenticate } as unknown as ExecutionContext;
  return guard.canActivate(context);
}

describe('published signing test vectors (docs/api/signing-test-vectors.json), on the gateway side', () => {
  it('covers every case the docs promise', () => {
    expect(vectors.map((vector) => vector.name)).toEqual([
      'plain-path',
      'colon-percent-encoded',
      'encoded-slash-stays',
      'encoded-space',
      'encoded-multibyte-utf8',
      'empty-object-body',
      'whitespace-and-unicode-body',
      'cancel',
    ]);
  });

  describe.each(vectors.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    // The guard checks x-timestamp against Date.now(): pin it to the vector's time.
    beforeEach(() => jest.useFakeTimers({ now: Number(vector.timestamp) * 1_000, doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] }));
    afterEach(() => jest.useRealTimers());

    it('signs the path and the string the vector gives', () => {
      expect(canonicalSignedPath(vector.wire_path)).toBe(vector.signed_path);
      expect(signedPayload(vector.timestamp, vector.signed_path, Buffer.from(vector.body, 'utf8')).toString('utf8')).toBe(vector.signed_string);
    });

    it("accepts the vector's signature and refuses it with one hex digit changed", async () => {
      await expect(authenticate(vector, vector.signature)).resolves.toBe(true);
      const flipped = `${vector.signature.slice(0, -1)}${vector.signature.endsWith('0') ? '1' : '0'}`;
      const refusal = await authenticate(vector, flipped).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(DomainError);
      expect((refusal as DomainError).code).toBe('INVALID_SIGNATURE');
    });
  });
});
