import {
  LEGACY_KEY_VERSION,
  apiSecretAssociatedData,
  newApiSecret,
  newMerchantId,
  newWebhookSecret,
  SecretBox,
  webhookSecretAssociatedData,
  type SealedSecret,
} from '@mp/access-domain';
import type { MerchantWebhookProfile } from '@mp/contracts-callbacks';
import type { DataSource, EntityManager } from 'typeorm';

export interface CreatedMerchant {
  merchantId: string;
  name: string;
  /** Shown once at creation, never again. */
  apiSecret: string;
  webhookSecret: string;
}

/** Spec endpoint 8: what an integrator needs to know about its account, never a secret. */
export interface MerchantProfile {
  merchant_id: string;
  name: string;
  status: 'active' | 'suspended';
  default_callback_url: string | null;
  created_at: string;
}

export interface MerchantCredentials {
  merchantId: string;
  status: 'active' | 'suspended';
  apiSecret: Buffer;
}

interface CacheEntry {
  credentials: MerchantCredentials | null;
  expiresAtMs: number;
}

const PROFILE_COLUMNS = 'merchant_id, name, status, default_callback_url, created_at';
type MerchantProfileRow = Omit<MerchantProfile, 'created_at'> & { created_at: Date };
const profileOf = (row: MerchantProfileRow | undefined): MerchantProfile | null => (row ? { ...row, created_at: row.created_at.toISOString() } : null);

/**
 * Creates merchants and serves their API secrets to the signature check. Decrypted secrets are
 * cached briefly so a request costs no database round trip; unknown ids are cached too, so a
 * flood of made-up keys cannot hammer the database.
 */
export class MerchantCredentialStore {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly secretBox: SecretBox,
    private readonly cacheTtlMs: number,
    private readonly cacheEntriesMax = 10_000,
  ) {}

  async createMerchant(name: string, defaultCallbackUrl: string | null): Promise<CreatedMerchant> {
    const merchantId = newMerchantId();
    const apiSecret = newApiSecret();
    const webhookSecret = newWebhookSecret();
    await this.dataSource.transaction(async (manager) => {
      await manager.query(`INSERT INTO merchants (merchant_id, name, default_callback_url) VALUES ($1, $2, $3)`, [merchantId, name, defaultCallbackUrl]);
      await insertSecret(manager, merchantId, 'api', this.secretBox.seal(apiSecret, apiSecretAssociatedData(merchantId)));
      await insertSecret(manager, merchantId, 'webhook', this.secretBox.seal(webhookSecret, webhookSecretAssociatedData(merchantId)));
    });
    return { merchantId, name, apiSecret, webhookSecret };
  }

  async findProfile(merchantId: string): Promise<MerchantProfile | null> {
    const rows: MerchantProfileRow[] = await this.dataSource.query(`SELECT ${PROFILE_COLUMNS} FROM merchants WHERE merchant_id = $1`, [merchantId]);
    return profileOf(rows[0]);
  }

  /**
   * Sets where the merchant's withdrawal and dispute outcomes go. A URL only, never back to none:
   * a withdrawal or dispute accepted while the merchant had one must still have somewhere to
   * report its outcome. Null when the merchant does not exist.
   */
  async setDefaultCallbackUrl(merchantId: string, defaultCallbackUrl: string): Promise<MerchantProfile | null> {
    // TypeORM answers an UPDATE ... RETURNING with [rows, affectedCount].
    const [rows]: [MerchantProfileRow[], number] = await this.dataSource.query(
      `UPDATE merchants SET default_callback_url = $2 WHERE merchant_id = $1 RETURNING ${PROFILE_COLUMNS}`,
      [merchantId, defaultCallbackUrl],
    );
    return profileOf(rows[0]);
  }

  async findCredentials(merchantId: string, nowMs = Date.now()): Promise<MerchantCredentials | null> {
    const cached = this.cache.get(merchantId);
    if (cached && cached.expiresAtMs > nowMs) return cached.credentials;

    const rows: Array<{ status: 'active' | 'suspended'; key_version: number; iv: Buffer; auth_tag: Buffer; ciphertext: Buffer }> = await this.dataSource.query(
      `SELECT m.status, s.key_version, s.iv, s.auth_tag, s.ciphertext
         FROM merchants m JOIN merchant_secrets s ON s.merchant_id = m.merchant_id AND s.purpose = 'api'
        WHERE m.merchant_id = $1`,
      [merchantId],
    );
    const row = rows[0];
    const credentials: MerchantCredentials | null = row
      ? {
          merchantId,
          status: row.status,
          apiSecret: Buffer.from(
            this.secretBox.open({ keyVersion: row.key_version, iv: row.iv, authTag: row.auth_tag, ciphertext: row.ciphertext }, apiSecretAssociatedData(merchantId)),
            'utf8',
          ),
        }
      : null;
    if (this.cache.size >= this.cacheEntriesMax) this.cache.clear();
    // A miss is remembered only briefly: a merchant created a moment ago must not stay "unknown".
    const ttlMs = credentials ? this.cacheTtlMs : Math.min(this.cacheTtlMs, 2_000);
    this.cache.set(merchantId, { credentials, expiresAtMs: nowMs + ttlMs });
    return credentials;
  }
}

interface WebhookSecretRow {
  status: 'active' | 'suspended';
  default_callback_url: string | null;
  key_version: number;
  iv: Buffer;
  auth_tag: Buffer;
  ciphertext: Buffer;
  previous_key_version: number | null;
  previous_iv: Buffer | null;
  previous_auth_tag: Buffer | null;
  previous_ciphertext: Buffer | null;
  previous_valid_until: Date | null;
}

/**
 * The merchant's webhook secrets for the callback dispatcher: the current one and, while the
 * rotation overlap lasts, the previous one. Read on the gateway's internal port only.
 */
export class WebhookSecretStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly secretBox: SecretBox,
  ) {}

  async findWebhookProfile(merchantId: string, now = new Date()): Promise<MerchantWebhookProfile | null> {
    const rows: WebhookSecretRow[] = await this.dataSource.query(
      `SELECT m.status, m.default_callback_url, s.key_version, s.iv, s.auth_tag, s.ciphertext,
              s.previous_key_version, s.previous_iv, s.previous_auth_tag, s.previous_ciphertext, s.previous_valid_until
         FROM merchants m JOIN merchant_secrets s ON s.merchant_id = m.merchant_id AND s.purpose = 'webhook'
        WHERE m.merchant_id = $1`,
      [merchantId],
    );
    const row = rows[0];
    if (!row) return null;
    const associatedData = webhookSecretAssociatedData(merchantId);
    const secrets: MerchantWebhookProfile['webhook_secrets'] = [
      { secret: this.secretBox.open({ keyVersion: row.key_version, iv: row.iv, authTag: row.auth_tag, ciphertext: row.ciphertext }, associatedData), role: 'current', valid_until: null },
    ];
    if (row.previous_ciphertext && row.previous_iv && row.previous_auth_tag && row.previous_valid_until && row.previous_valid_until > now) {
      const sealed = { keyVersion: row.previous_key_version ?? LEGACY_KEY_VERSION, iv: row.previous_iv, authTag: row.previous_auth_tag, ciphertext: row.previous_ciphertext };
      secrets.push({ secret: this.secretBox.open(sealed, associatedData), role: 'previous', valid_until: row.previous_valid_until.toISOString() });
    }
    return { merchant_id: merchantId, status: row.status, default_callback_url: row.default_callback_url, webhook_secrets: secrets };
  }

  /**
   * A new webhook secret, shown once; the current one becomes the previous one, still used to
   * sign callbacks for `overlapMs`. A second rotation inside the overlap drops the oldest.
   * Null when the merchant does not exist.
   */
  async rotateWebhookSecret(merchantId: string, overlapMs: number, now = new Date()): Promise<{ webhookSecret: string; previousValidUntil: string } | null> {
    const webhookSecret = newWebhookSecret();
    const sealed = this.secretBox.seal(webhookSecret, webhookSecretAssociatedData(merchantId));
    const previousValidUntil = new Date(now.getTime() + overlapMs);
    // TypeORM answers an UPDATE with [rows, affectedCount].
    const [, affected] = (await this.dataSource.query(
      `UPDATE merchant_secrets
          SET previous_key_version = key_version, previous_iv = iv, previous_auth_tag = auth_tag, previous_ciphertext = ciphertext, previous_valid_until = $6,
              key_version = $2, iv = $3, auth_tag = $4, ciphertext = $5, created_at = $7
        WHERE merchant_id = $1 AND purpose = 'webhook'
        RETURNING merchant_id`,
      [merchantId, sealed.keyVersion, sealed.iv, sealed.authTag, sealed.ciphertext, previousValidUntil, now],
    )) as [unknown[], number];
    return affected === 1 ? { webhookSecret, previousValidUntil: previousValidUntil.toISOString() } : null;
  }
}

async function insertSecret(manager: EntityManager, merchantId: string, purpose: 'api' | 'webhook', sealed: SealedSecret): Promise<void> {
  await manager.query(
    `INSERT INTO merchant_secrets (merchant_id, purpose, key_version, iv, auth_tag, ciphertext) VALUES ($1, $2, $3, $4, $5, $6)`,
    [merchantId, purpose, sealed.keyVersion, sealed.iv, sealed.authTag, sealed.ciphertext],
  );
}
