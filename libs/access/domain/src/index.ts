export {
  AUTH_HEADERS,
  MalformedPathError,
  TIMESTAMP_TOLERANCE_SECONDS,
  canonicalSignedPath,
  checkTimestamp,
  computeSignature,
  signaturesMatch,
  signedPayload,
  type TimestampCheck,
} from './request-signature';
// The secret box is shared with payments (recipient accounts); access keeps exporting it.
export { LEGACY_KEY_VERSION, MASTER_KEY_BYTES, SecretBox, SecretKeyring, type SealedSecret } from '@mp/shared-util-secret-box';
export {
  MERCHANT_ID_PATTERN,
  apiSecretAssociatedData,
  newApiSecret,
  newMerchantId,
  newWebhookSecret,
  webhookSecretAssociatedData,
} from './merchant-identity';
