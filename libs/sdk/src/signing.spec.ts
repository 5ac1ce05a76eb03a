import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathSegment, signRequest } from './signing';

interface SigningVector {
  name: string;
  secret: string;
  timestamp: string;
  wire_path: string;
  body: string;
  signed_path: string;
  signed_string: string;
  signature: string;
}

const { vectors } = JSON.parse(readFileSync(join(__dirname, '../../../docs/api/signing-test-vectors.json'), 'utf8')) as { vectors: SigningVector[] };

describe('the SDK signs every published test vector (docs/api/signing-test-vectors.json)', () => {
  it.each(vectors.map((vector) => [vector.name, vector] as const))('%s', (_name, vector) => {
    expect(signRequest({ secret: vector.secret, timestamp: vector.timestamp, wirePath: vector.wire_path, body: vector.body })).toEqual({
      signedPath: vector.signed_path,
      signedString: vector.signed_string,
      signature: vector.signature,
    });
    // The same bytes given as a Buffer sign the same.
    expect(
      signRequest({ secret: vector.secret, timestamp: vector.timestamp, wirePath: vector.wire_path, body: Buffer.from(vector.body, 'utf8') }).signature,
    ).toBe(vector.signature);
  });

  it('builds the wire path of an id with / and : so that it signs as the vectors do', () => {
    const wirePath = `/v2/payments/status/${pathSegment('shop/2026:17')}`;
    expect(wirePath).toBe(vectors.find((vector) => vector.name === 'encoded-slash-stays')?.wire_path);
  });
});
