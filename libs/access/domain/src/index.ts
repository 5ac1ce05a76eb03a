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
export { MASTER_KEY_BYTES, SecretBox, type SealedSecret } from './secret-box';
export {
  MERCHANT_ID_PATTERN,
  apiSecretAssociatedData,
  newApiSecret,
  newMerchantId,
  newWebhookSecret,
  webhookSecretAssociatedData,
} from './merchant-identity';
