export { AccessSchema1700000002000 } from './access-schema.migration';
export { MerchantCredentialStore, type CreatedMerchant, type MerchantCredentials } from './merchant-credential.store';
