import { createCipheriv, createDecipheriv, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomBytes, type KeyObject } from 'node:crypto';

const SALT_BYTES = 16;
const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** An X25519 public key: 32 bytes, base64url without padding. */
export const PROCESS_PUBLIC_KEY_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Peers a process remembers the shared secret of: a few replicas each side, so this is never reached in practice. */
const MAX_REMEMBERED_PEERS = 256;

/**
 * Seals a short value for one running process, through a channel that stores it (an outbox, a
 * Kafka topic), so that only that process can read it: ECDH (X25519) between the sender's and the
 * recipient's key pairs, HKDF-SHA256 with a random salt per value giving a fresh AES-256-GCM key
 * and IV, and the caller's context (what the value belongs to) as associated data, so a sealed
 * value copied next to another order does not open.
 *
 * Each process makes its key pair at start and keeps it in memory only: nothing to configure,
 * distribute or rotate, and what was sealed for a process that has stopped opens nowhere. The
 * recipient names its public key in its request; the sender puts its own in the sealed value.
 * The ECDH result per peer is remembered, so a value costs one HKDF and one AES-GCM pass.
 *
 * Written here rather than taken from a library: `node:crypto` has every primitive, and the
 * packages that bundle them (ECIES, JWE) would add a dependency for twenty lines.
 */
export class ProcessSealer {
  readonly publicKey: string;
  private readonly privateKey: KeyObject;
  private readonly sharedSecrets = new Map<string, Buffer>();

  constructor() {
    const pair = generateKeyPairSync('x25519');
    this.privateKey = pair.privateKey;
    this.publicKey = String(pair.publicKey.export({ format: 'jwk' }).x);
  }

  /** `v1.<sender public key>.<salt>.<ciphertext and tag>`, base64url parts. Throws on a malformed recipient key. */
  seal(recipientPublicKey: string, plaintext: string, context: string): string {
    const salt = randomBytes(SALT_BYTES);
    const { key, iv } = this.messageKey(recipientPublicKey, salt);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return ['v1', this.publicKey, salt.toString('base64url'), sealed.toString('base64url')].join('.');
  }

  /** The plaintext, or null when the value was not sealed for this process and context (or is malformed). */
  open(sealedValue: string, context: string): string | null {
    const [version, senderPublicKey, salt, sealed, ...rest] = sealedValue.split('.');
    if (version !== 'v1' || rest.length > 0 || !salt || !sealed) return null;
    try {
      const { key, iv } = this.messageKey(senderPublicKey, Buffer.from(salt, 'base64url'));
      const bytes = Buffer.from(sealed, 'base64url');
      const decipher = createDecipheriv('aes-256-gcm', key, iv);
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }

  private messageKey(peerPublicKey: string, salt: Buffer): { key: Buffer; iv: Buffer } {
    const material = Buffer.from(hkdfSync('sha256', this.sharedSecretWith(peerPublicKey), salt, 'mp:sealed-for-process', KEY_BYTES + IV_BYTES));
    return { key: material.subarray(0, KEY_BYTES), iv: material.subarray(KEY_BYTES) };
  }

  private sharedSecretWith(peerPublicKey: string): Buffer {
    const remembered = this.sharedSecrets.get(peerPublicKey);
    if (remembered) return remembered;
    if (!PROCESS_PUBLIC_KEY_PATTERN.test(peerPublicKey)) throw new Error('not an X25519 public key');
    const publicKey = createPublicKey({ key: { kty: 'OKP', crv: 'X25519', x: peerPublicKey }, format: 'jwk' });
    // Node refuses a low-order peer key (an all-zero result) here, so no weak secret is ever used.
    const secret = diffieHellman({ privateKey: this.privateKey, publicKey });
    if (this.sharedSecrets.size >= MAX_REMEMBERED_PEERS) this.sharedSecrets.clear();
    this.sharedSecrets.set(peerPublicKey, secret);
    return secret;
  }
}
