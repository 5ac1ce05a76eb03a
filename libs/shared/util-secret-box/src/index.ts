export { deriveKey, LEGACY_KEY_VERSION, MASTER_KEY_BYTES, readMasterKeyring, SecretKeyring, UnknownKeyVersionError } from './keyring';
export { SecretBox, type SealedSecret } from './secret-box';
export { nothingRemains, resealRetiredValues, type ResealableStore, type ResealReport, type SealedValue } from './reseal';
export { ProcessSealer, PROCESS_PUBLIC_KEY_PATTERN } from './process-sealer';
