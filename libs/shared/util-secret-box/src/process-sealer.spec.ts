import { ProcessSealer, PROCESS_PUBLIC_KEY_PATTERN } from './process-sealer';

describe('ProcessSealer', () => {
  const gateway = new ProcessSealer();
  const payments = new ProcessSealer();

  it('seals a value that only the recipient process opens, and only for the same context', () => {
    expect(gateway.publicKey).toMatch(PROCESS_PUBLIC_KEY_PATTERN);
    const sealed = payments.seal(gateway.publicKey, 'https://pay.example/pay/token', 'payer-link:m1/o1');
    expect(sealed).not.toContain('token');
    expect(gateway.open(sealed, 'payer-link:m1/o1')).toBe('https://pay.example/pay/token');
    expect(gateway.open(sealed, 'payer-link:m1/o2')).toBeNull();
    expect(new ProcessSealer().open(sealed, 'payer-link:m1/o1')).toBeNull();
  });

  it('seals the same value differently each time, and each opens', () => {
    const first = payments.seal(gateway.publicKey, 'link', 'ctx');
    const second = payments.seal(gateway.publicKey, 'link', 'ctx');
    expect(first).not.toBe(second);
    expect([gateway.open(first, 'ctx'), gateway.open(second, 'ctx')]).toEqual(['link', 'link']);
  });

  it('opens nothing tampered with or malformed, and refuses to seal for a key that is not one', () => {
    const sealed = payments.seal(gateway.publicKey, 'link', 'ctx');
    const parts = sealed.split('.');
    const flipped = Buffer.from(parts[3], 'base64url');
    flipped[0] ^= 1;
    expect(gateway.open([...parts.slice(0, 3), flipped.toString('base64url')].join('.'), 'ctx')).toBeNull();
    expect(gateway.open(['v2', ...parts.slice(1)].join('.'), 'ctx')).toBeNull();
    expect(gateway.open('garbage', 'ctx')).toBeNull();
    expect(() => payments.seal('not-a-key', 'link', 'ctx')).toThrow(/not an X25519 public key/);
    // A low-order point would give an all-zero shared secret; Node refuses the derivation.
    expect(() => payments.seal(Buffer.alloc(32).toString('base64url'), 'link', 'ctx')).toThrow();
  });
});
