export { AccessSchema1700000002000 } from './access-schema.migration';
export {
  BACKOFFICE_CREDENTIAL_ID_PATTERN,
  BackofficeCredentialStore,
  issuanceAuditDetails,
  type BackofficeAuthentication,
  type BootstrapOperatorResult,
  type BackofficeCredentialView,
  type BackofficePrincipal,
  type RevokeResult,
  type BackofficeRole,
  type CreatedBackofficeCredential,
  type CreateCredentialOptions,
  type IssueResult,
} from './backoffice-credential.store';
export { AccessCredentialLifetimes1700000050200 } from './credential-lifetimes.migration';
export { AccessDefaultReturnUrl1700000050390 } from './default-return-url.migration';
export { AccessWebhookSecretRotation1700000004500 } from './webhook-secret-rotation.migration';
export {
  MerchantCredentialStore,
  WebhookSecretStore,
  type ApiSecretRotationResult,
  type CreatedMerchant,
  type MerchantAccessRecord,
  type MerchantCredentials,
  type MerchantProfile,
  type MerchantStatusResult,
  type TestMerchantResult,
} from './merchant-credential.store';
export { MerchantSecretsResealStore, type MerchantSecretPosition } from './merchant-secrets.reseal';
export { AccessTrustBoundaries1700000006200 } from './trust-boundaries.migration';
export { AccessSandboxMerchants1700000032100 } from './sandbox-merchants.migration';
export { AccessMerchantList1700000033100 } from './merchant-list.migration';
export { createOperatorByCommand, issuedOperatorJson } from './command-operator';
export { BackofficeAuditStore, type BackofficeAuditEntry, type BackofficeAuditFilter, type BackofficeAuditRecord } from './backoffice-audit.store';
export { AccessConsole1700000040000 } from './console.migration';
export { AccessOperatorIdentity1700000050000 } from './operator-identity.migration';
export { AccessRequestSignatures1700000050100 } from './request-signatures.migration';
export { RequestSignatureStore } from './request-signature.store';
export {
  CONSOLE_KEY_ID_PATTERN,
  CONSOLE_KEY_LIFETIME_DAYS_DEFAULT,
  ConsoleKeyStore,
  type ConsoleKeyAuthentication,
  type ConsoleKeyRevocation,
  type ConsoleKeyView,
  type CreatedConsoleKey,
} from './console-key.store';
