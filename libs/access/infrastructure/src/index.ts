export { AccessSchema1700000002000 } from './access-schema.migration';
export {
  BackofficeCredentialStore,
  type BackofficePrincipal,
  type BackofficeRole,
  type CreatedBackofficeCredential,
} from './backoffice-credential.store';
export { MerchantCredentialStore, type CreatedMerchant, type MerchantCredentials, type MerchantProfile } from './merchant-credential.store';
