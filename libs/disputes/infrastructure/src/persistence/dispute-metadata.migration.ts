import { metadataColumnMigration } from '@mp/shared-data-access-postgres';

/** Every dispute's merchant metadata, shown by reads, lists and callbacks; `{}` for those opened before. */
export const DisputeMetadata1700000039200 = metadataColumnMigration('DisputeMetadata1700000039200', 'disputes');
