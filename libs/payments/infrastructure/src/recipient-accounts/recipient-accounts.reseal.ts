import type { ResealableStore, SealedValue } from '@mp/shared-util-secret-box';
import type { DataSource } from 'typeorm';
import { recipientAccountAssociatedData } from './recipient-account.vault';

interface SealedRow {
  reference: string;
  merchant_id: string;
  key_version: number;
  iv: Buffer;
  auth_tag: Buffer;
  ciphertext: Buffer;
}

/**
 * Payout recipient accounts for the master-key re-seal (apps/ops rekey), in reference order.
 * Open them with a SecretBox over the payments keyring derived for RECIPIENT_ACCOUNT_KEY_PURPOSE.
 * Rows are never changed after they are stored, but each write is still guarded by the version
 * and IV that were read, so a second re-seal running at the same time cannot write twice.
 */
export class RecipientAccountsResealStore implements ResealableStore<string> {
  readonly name = 'payout recipient accounts';

  constructor(private readonly dataSource: DataSource) {}

  async countByVersion(): Promise<Map<number, number>> {
    const rows: Array<{ key_version: number; count: string }> = await this.dataSource.query(
      `SELECT key_version, count(*) AS count FROM payout_recipient_accounts GROUP BY key_version`,
    );
    return new Map(rows.map((row) => [row.key_version, Number(row.count)]));
  }

  async page(versions: readonly number[], after: string | null, limit: number): Promise<Array<SealedValue<string>>> {
    const rows: SealedRow[] = await this.dataSource.query(
      `SELECT reference, merchant_id, key_version, iv, auth_tag, ciphertext FROM payout_recipient_accounts
        WHERE key_version = ANY($1::int[]) AND ($2::text IS NULL OR reference > $2)
        ORDER BY reference LIMIT $3`,
      [versions, after, limit],
    );
    return rows.map((row) => ({
      position: row.reference,
      associatedData: recipientAccountAssociatedData(row.merchant_id, row.reference),
      sealed: { keyVersion: row.key_version, iv: row.iv, authTag: row.auth_tag, ciphertext: row.ciphertext },
    }));
  }

  async replace(replacements: Parameters<ResealableStore<string>['replace']>[0]): Promise<number> {
    if (replacements.length === 0) return 0;
    // One statement per page: the rows' new values travel as parallel arrays.
    const [, affected] = (await this.dataSource.query(
      `UPDATE payout_recipient_accounts a SET key_version = n.key_version, iv = n.iv, auth_tag = n.auth_tag, ciphertext = n.ciphertext
         FROM unnest($1::text[], $2::int[], $3::bytea[], $4::bytea[], $5::bytea[], $6::int[], $7::bytea[])
              AS n(reference, key_version, iv, auth_tag, ciphertext, old_key_version, old_iv)
        WHERE a.reference = n.reference AND a.key_version = n.old_key_version AND a.iv = n.old_iv`,
      [
        replacements.map(({ value }) => value.position),
        replacements.map(({ resealed }) => resealed.keyVersion),
        replacements.map(({ resealed }) => resealed.iv),
        replacements.map(({ resealed }) => resealed.authTag),
        replacements.map(({ resealed }) => resealed.ciphertext),
        replacements.map(({ value }) => value.sealed.keyVersion),
        replacements.map(({ value }) => value.sealed.iv),
      ],
    )) as [unknown[], number];
    return affected;
  }
}
