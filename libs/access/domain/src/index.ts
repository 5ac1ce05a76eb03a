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
  TEST_MERCHANT_ID_PREFIX,
  isTestMerchantId,
  testMerchantIdFor,
  apiSecretAssociatedData,
  newApiSecret,
  newMerchantId,
  newWebhookSecret,
  webhookSecretAssociatedData,
} from './merchant-identity';
export { decideApiSecretRotation, secretsValidAt, type ApiSecretRotationDecision, type ApiSecretRotationState, type VerifyingSecret } from './secret-rotation';
export {
  AGENT_LIVE_CREDENTIALS_MAX,
  CREDENTIAL_LIFETIME_DAYS_LIMIT,
  DAY_MS,
  DEFAULT_AGENT_CREDENTIAL_LIFETIME_DAYS,
  DEFAULT_OPERATOR_CREDENTIAL_LIFETIME_DAYS,
  checkBackofficeCredential,
  credentialExpiry,
  credentialState,
  storedCredentialHash,
  decideMerchantStatus,
  type BackofficeCredentialCheck,
  type BackofficeCredentialState,
  type CredentialState,
  type MerchantStatus,
  type MerchantStatusDecision,
} from './operator-credential';
