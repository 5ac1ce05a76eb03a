import { apiSecretAssociatedData, LEGACY_KEY_VERSION, webhookSecretAssociatedData } from '@mp/access-domain';
import type { ResealableStore, SealedValue } from '@mp/shared-util-secret-box';
import type { DataSource } from 'typeorm';

/** A sealed value in merchant_secrets: a merchant's API or webhook secret, and the previous one kept for a rotation overlap. */
export interface MerchantSecretPosition {
  merchantId: string;
  purpose: 'api' | 'webhook';
  slot: 'current' | 'previous';
}

interface SealedRow {
  merchant_id: string;
  purpose: 'api' | 'webhook';
  slot: 'current' | 'previous';
  key_version: number;
  iv: Buffer;
  auth_tag: Buffer;
  ciphertext: Buffer;
}

// Every sealed value of the table, one row each: the current secret, and the previous (API or
// webhook) secret while one is kept (rows written before key versions were recorded for it are version 1).
const SEALED_VALUES = `
  SELECT merchant_id, purpose, 'current' AS slot, key_version, iv, auth_tag, ciphertext FROM merchant_secrets
  UNION ALL
  SELECT merchant_id, purpose, 'previous' AS slot, COALESCE(previous_key_version, ${LEGACY_KEY_VERSION}), previous_iv, previous_auth_tag, previous_ciphertext
    FROM merchant_secrets WHERE previous_ciphertext IS NOT NULL`;

/**
 * The gateway's merchant secrets for the master-key re-seal (apps/ops rekey). Each write is
 * guarded by the version and IV that were read: a secret rotated meanwhile is not
 * overwritten, and whatever the rotation moved to the previous slot is found by the next run.
 */
export class MerchantSecretsResealStore implements ResealableStore<MerchantSecretPosition> {
  readonly name = 'merchant secrets (API and webhook)';

  constructor(private readonly dataSource: DataSource) {}

  async countByVersion(): Promise<Map<number, number>> {
    const rows: Array<{ key_version: number; count: string }> = await this.dataSource.query(
      `SELECT key_version, count(*) AS count FROM (${SEALED_VALUES}) v GROUP BY key_version`,
    );
    return new Map(rows.map((row) => [row.key_version, Number(row.count)]));
  }

  async page(versions: readonly number[], after: MerchantSecretPosition | null, limit: number): Promise<Array<SealedValue<MerchantSecretPosition>>> {
    const rows: SealedRow[] = await this.dataSource.query(
      `SELECT * FROM (${SEALED_VALUES}) v
        WHERE key_version = ANY($1::int[]) AND ($2::text IS NULL OR (merchant_id, purpose, slot) > ($2, $3, $4))
        ORDER BY merchant_id, purpose, slot LIMIT $5`,
      [versions, after?.merchantId ?? null, after?.purpose ?? null, after?.slot ?? null, limit],
    );
    return rows.map((row) => ({
      position: { merchantId: row.merchant_id, purpose: row.purpose, slot: row.slot },
      associatedData: row.purpose === 'api' ? apiSecretAssociatedData(row.merchant_id) : webhookSecretAssociatedData(row.merchant_id),
      sealed: { keyVersion: row.key_version, iv: row.iv, authTag: row.auth_tag, ciphertext: row.ciphertext },
    }));
  }

  async replace(replacements: Parameters<ResealableStore<MerchantSecretPosition>['replace']>[0]): Promise<number> {
    return this.dataSource.transaction(async (manager) => {
      let written = 0;
      for (const { value, resealed } of replacements) {
        const { merchantId, purpose, slot } = value.position;
        const sql =
          slot === 'current'
            ? `UPDATE merchant_secrets SET key_version = $3, iv = $4, auth_tag = $5, ciphertext = $6
                WHERE merchant_id = $1 AND purpose = $2 AND key_version = $7 AND iv = $8`
            : `UPDATE merchant_secrets SET previous_key_version = $3, previous_iv = $4, previous_auth_tag = $5, previous_ciphertext = $6
                WHERE merchant_id = $1 AND purpose = $2 AND COALESCE(previous_key_version, ${LEGACY_KEY_VERSION}) = $7 AND previous_iv = $8`;
        // TypeORM answers an UPDATE with [rows, affectedCount].
        const [, affected] = (await manager.query(sql, [
          merchantId,
          purpose,
          resealed.keyVersion,
          resealed.iv,
          resealed.authTag,
          resealed.ciphertext,
          value.sealed.keyVersion,
          value.sealed.iv,
        ])) as [unknown[], number];
        written += affected;
      }
      return written;
    });
  }
}
