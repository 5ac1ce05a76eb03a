import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { LEGACY_KEY_VERSION, SecretKeyring } from './keyring';

export { deriveKey, MASTER_KEY_BYTES } from './keyring';

/**
 * AES-256-GCM encryption of secrets at rest (merchant API secrets, payout recipient accounts).
 * They must be recoverable (the server recomputes a MAC; an agent pays to the account), so they
 * are encrypted, not hashed. The owner and purpose are bound as associated data: a ciphertext
 * copied to another row does not decrypt. Each sealed value records the version of the key that
 * sealed it, so a keyring can open values of several versions while a master key is rotated.
 */
export interface SealedSecret {
  keyVersion: number;
  iv: Buffer;
  authTag: Buffer;
  ciphertext: Buffer;
}

const IV_BYTES = 12;

export class SecretBox {
  readonly keyring: SecretKeyring;

  /** A keyring, or one key (as version `keyVersion`) where nothing is ever rotated (benchmarks, tests). */
  constructor(keys: SecretKeyring | Buffer, keyVersion = LEGACY_KEY_VERSION) {
    this.keyring = keys instanceof SecretKeyring ? keys : SecretKeyring.single(keys, keyVersion);
  }

  /** The version new values are sealed with. */
  get keyVersion(): number {
    return this.keyring.currentVersion;
  }

  /** Always with the current key. */
  seal(plaintext: string, associatedData: string): SealedSecret {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keyring.currentKey, iv);
    cipher.setAAD(Buffer.from(associatedData, 'utf8'));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyVersion: this.keyring.currentVersion, iv, authTag: cipher.getAuthTag(), ciphertext };
  }

  /** With the key of the value's own version; an unknown version throws UnknownKeyVersionError. */
  open(sealed: SealedSecret, associatedData: string): string {
    const decipher = createDecipheriv('aes-256-gcm', this.keyring.keyFor(sealed.keyVersion), sealed.iv);
    decipher.setAAD(Buffer.from(associatedData, 'utf8'));
    decipher.setAuthTag(sealed.authTag);
    try {
      return Buffer.concat([decipher.update(sealed.ciphertext), decipher.final()]).toString('utf8');
    } catch {
      // GCM's own message ("unable to authenticate data") does not say where to look.
      throw new Error(
        `secret does not open with key version ${sealed.keyVersion}: the key configured for that version is not the one that sealed it, or the value or its owner changed`,
      );
    }
  }
}
