import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * AES-256-GCM encryption of secrets at rest (merchant API secrets, payout recipient accounts).
 * They must be recoverable (the server recomputes a MAC; an agent pays to the account), so they
 * are encrypted, not hashed. The owner and purpose are bound as associated data: a ciphertext
 * copied to another row does not decrypt.
 */
export interface SealedSecret {
  keyVersion: number;
  iv: Buffer;
  authTag: Buffer;
  ciphertext: Buffer;
}

const IV_BYTES = 12;
export const MASTER_KEY_BYTES = 32;

export class SecretBox {
  constructor(
    private readonly masterKey: Buffer,
    readonly keyVersion = 1,
  ) {
    if (masterKey.length !== MASTER_KEY_BYTES) throw new Error(`master key must be ${MASTER_KEY_BYTES} bytes`);
  }

  seal(plaintext: string, associatedData: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.masterKey, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyVersion: this.keyVersion, iv, authTag: cipher.getAuthTag(), ciphertext };
  }

  open(sealed: SealedSecret, associatedData: string): string {
    if (sealed.keyVersion !== this.keyVersion) throw new Error(`secret sealed with key version ${sealed.keyVersion}, have ${this.keyVersion}`);
    const decipher = createDecipheriv('aes-256-gcm', this.masterKey, sealed.iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.authTag);
    return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
  }
}

/**
 * A key of its own for one purpose, derived from a service's master key (HKDF-SHA256, RFC 5869),
 * so one master key per service serves several purposes and a key for one purpose never
 * decrypts or authenticates another's data.
 */
export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  if (masterKey.length !== MASTER_KEY_BYTES) throw new Error(`master key must be ${MASTER_KEY_BYTES} bytes`);
  return Buffer.from(hkdfSync('sha256', masterKey, Buffer.alloc(0), `mp:${purpose}`, MASTER_KEY_BYTES));
}
