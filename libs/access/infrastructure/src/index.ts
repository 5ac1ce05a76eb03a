export { AccessSchema1700000002000 } from './access-schema.migration';
export {
  BackofficeCredentialStore,
  type BackofficePrincipal,
  type BackofficeRole,
  type CreatedBackofficeCredential,
} from './backoffice-credential.store';
export { AccessWebhookSecretRotation1700000004500 } from './webhook-secret-rotation.migration';
export { MerchantCredentialStore, WebhookSecretStore, type CreatedMerchant, type MerchantCredentials, type MerchantProfile } from './merchant-credential.store';
export { MerchantSecretsResealStore, type MerchantSecretPosition } from './merchant-secrets.reseal';
