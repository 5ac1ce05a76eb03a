import { metadataColumnMigration } from '@mp/shared-data-access-postgres';

/** Every withdrawal's merchant metadata, shown by reads and lists; `{}` for those requested before. */
export const WithdrawalMetadata1700000039100 = metadataColumnMigration('WithdrawalMetadata1700000039100', 'withdrawals');
