import {
  createCipheriv,
  createDecipheriv,
  createHmac,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
  hkdfSync,
  randomBytes,
  type KeyObject,
} from 'node:crypto';

const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Every value has a key of its own (below), so the GCM nonce need not vary. */
const FIXED_IV = Buffer.alloc(12);
const TAG_BYTES = 16;
/** An X25519 public key: 32 bytes, base64url without padding. */
export const PROCESS_PUBLIC_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Peers a process remembers the shared secret of: a few replicas each side, so this is never reached in practice. */
const MAX_REMEMBERED_PEERS = 256;

/**
 * Seals a short value for one running process, through a channel that stores it (an outbox, a
 * Kafka topic), so that only that process can read it: ECDH (X25519) between the sender's and the
 * recipient's key pairs, HKDF-SHA256 of the shared secret once per peer, then a fresh AES-256-GCM
 * key per value (HMAC-SHA256 of a random salt under the peer's key: HKDF-Expand's one block; a
 * whole `hkdfSync` per value costs about 0.2 ms in Node, an HMAC a hundredth of that), and the
 * caller's context (what the value belongs to) as associated data, so a sealed value copied next
 * to another order does not open.
 *
 * Each process makes its key pair at start and keeps it in memory only: nothing to configure,
 * distribute or rotate, and what was sealed for a process that has stopped opens nowhere. The
 * recipient names its public key in its request; the sender puts its own in the sealed value.
 * The key per peer is remembered, so a value costs one HMAC and one AES-GCM pass.
 *
 * Written here rather than taken from a library: `node:crypto` has every primitive, and the
 * packages that bundle them (ECIES, JWE) would add a dependency for twenty lines.
 */
export class ProcessSealer {
  readonly publicKey: string;
  private readonly privateKey: KeyObject;
  private readonly peerKeys = new Map<string, Buffer>();

  constructor() {
    const pair = generateKeyPairSync('x25519');
    this.privateKey = pair.privateKey;
    this.publicKey = String(pair.publicKey.export({ format: 'jwk' }).x);
  }

  /** `v1.<sender public key>.<salt>.<ciphertext and tag>`, base64url parts. Throws on a malformed recipient key. */
  seal(recipientPublicKey: string, plaintext: string, context: string): string {
    const salt = randomBytes(SALT_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.valueKey(recipientPublicKey, salt), FIXED_IV);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return ['v1', this.publicKey, salt.toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** The plaintext, or null when the value was not sealed for this process and context (or is malformed). */
  open(sealedValue: string, context: string): string | null {
    const [version, senderPublicKey, salt, sealed, ...rest] = sealedValue.split('.');
    if (version !== 'v1' || rest.length > 0 || !salt || !sealed) return null;
    try {
      const key = this.valueKey(senderPublicKey, Buffer.from(salt, 'base64url'));
      const bytes = Buffer.from(sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, FIXED_IV);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

  /** A salt of 16 random bytes never repeats in practice, so neither does the key. */
  private valueKey(peerPublicKey: string, salt: Buffer): Buffer {
    if (salt.length !== SALT_BYTES) throw new Error('malformed salt');
    return createHmac('sha256', this.peerKey(peerPublicKey)).update(salt).update('\x01').digest();
  }

  private peerKey(peerPublicKey: string): Buffer {
    const remembered = this.peerKeys.get(peerPublicKey);
    if (remembered) return remembered;
    if (!PROCESS_PUBLIC_KEY_PATTERN.test(peerPublicKey)) throw new Error('not an X25519 public key');
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: peerPublicKey }, format: 'jwk' });
    // Node refuses a low-order peer key (an all-zero result) here, so no weak secret is ever used.
    const sharedSecret = diffieHellman({ privateKey: this.privateKey, publicKey });
    const key = Buffer.from(hkdfSync('sha256', sharedSecret, Buffer.alloc(0), 'mp:sealed-for-process', KEY_BYTES));
    if (this.peerKeys.size >= MAX_REMEMBERED_PEERS) this.peerKeys.clear();
    this.peerKeys.set(peerPublicKey, key);
    return key;
  }
}
