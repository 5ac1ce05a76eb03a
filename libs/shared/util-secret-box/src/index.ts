export { deriveKey, MASTER_KEY_BYTES, SecretBox, type SealedSecret } from './secret-box';
