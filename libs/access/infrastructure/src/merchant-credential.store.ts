import {
  LEGACY_KEY_VERSION,
  apiSecretAssociatedData,
  decideApiSecretRotation,
  decideMerchantStatus,
  type MerchantStatus,
  type VerifyingSecret,
  newApiSecret,
  newMerchantId,
  newWebhookSecret,
  SecretBox,
  testMerchantIdFor,
  webhookSecretAssociatedData,
  type SealedSecret,
} from '@mp/access-domain';
import type { MerchantWebhookProfile } from '@mp/contracts-callbacks';
import { fetchNewestFirstPage, PositionCursor, SqlConditions } from '@mp/shared-data-access-postgres';
import type { DataSource, EntityManager } from 'typeorm';

export interface CreatedMerchant {
  merchantId: string;
  name: string;
  /** `test`: a sandbox merchant (docs/api/sandbox.md). */
  mode: 'live' | 'test';
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
  /** Where the payer page links back to for pay-ins without a `return_url` of their own; null until set. */
  default_return_url: string | null;
  created_at: string;
}

export interface MerchantCredentials {
  merchantId: string;
  status: 'active' | 'suspended';
  apiSecret: Buffer;
  /** The secret a rotation replaced, with the end of its overlap; checked against the clock on every request. */
  previousApiSecret: VerifyingSecret | null;
}

/** What operators see beside the profile: the last status change and the rotation overlaps. */
export interface MerchantAccessRecord {
  status_changed_at: string | null;
  status_changed_by: string | null;
  status_reason: string | null;
  api_secret_previous_valid_until: string | null;
  webhook_secret_previous_valid_until: string | null;
}

export type ApiSecretRotationResult =
  | { kind: 'rotated'; apiSecret: string; previousValidUntil: string }
  | { kind: 'refused'; code: 'SECRET_ROTATION_IN_PROGRESS'; previousValidUntil: string }
  | { kind: 'not_found' };

export type TestMerchantResult =
  { kind: 'created'; merchant: CreatedMerchant } | { kind: 'exists'; merchantId: string } | { kind: 'not_live' } | { kind: 'not_found' };

export type MerchantStatusResult =
  { kind: 'changed'; profile: MerchantProfile } | { kind: 'refused'; code: 'MERCHANT_STATUS_CONFLICT'; status: MerchantStatus } | { kind: 'not_found' };

interface CacheEntry {
  credentials: MerchantCredentials | null;
  loadedAtMs: number;
  expiresAtMs: number;
}

/**
 * A signature that does not match a cached secret may be the new secret of a rotation made on
 * another replica: the secrets are read again, but at most this often per merchant, so a flood
 * of bad signatures cannot turn into a flood of queries.
 */
const REFRESH_ON_MISMATCH_INTERVAL_MS = 1_000;

interface SealedColumns {
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

const PROFILE_COLUMNS = 'merchant_id, name, status, default_callback_url, default_return_url, created_at';
type MerchantProfileRow = Omit<MerchantProfile, 'created_at'> & { created_at: Date };
const profileOf = (row: MerchantProfileRow | undefined): MerchantProfile | null => (row ? { ...row, created_at: row.created_at.toISOString() } : null);
const MERCHANT_LIST_CURSOR = new PositionCursor('m');

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
    return this.dataSource.transaction((manager) => this.insertMerchant(manager, { merchantId, name, defaultCallbackUrl, liveMerchantId: null }));
  }

  /**
   * The sandbox merchant of a live merchant: `test_` and its id, its own secrets (shown once),
   * its name and default callback URL. One per live merchant: a second is refused (its secrets
   * rotate like any merchant's), as is a test merchant's own.
   */
  async createTestMerchant(liveMerchantId: string): Promise<TestMerchantResult> {
    return this.dataSource.transaction(async (manager): Promise<TestMerchantResult> => {
      const rows: Array<{ name: string; mode: 'live' | 'test'; default_callback_url: string | null }> = await manager.query(
        `SELECT name, mode, default_callback_url FROM merchants WHERE merchant_id = $1 FOR UPDATE`,
        [liveMerchantId],
      );
      const live = rows[0];
      if (!live) return { kind: 'not_found' };
      if (live.mode === 'test') return { kind: 'not_live' };
      const merchantId = testMerchantIdFor(liveMerchantId);
      const existing: unknown[] = await manager.query(`SELECT 1 FROM merchants WHERE merchant_id = $1`, [merchantId]);
      if (existing.length > 0) return { kind: 'exists', merchantId };
      const name = `${live.name.slice(0, 193)} (test)`;
      return {
        kind: 'created',
        merchant: await this.insertMerchant(manager, { merchantId, name, defaultCallbackUrl: live.default_callback_url, liveMerchantId }),
      };
    });
  }

  private async insertMerchant(
    manager: EntityManager,
    merchant: { merchantId: string; name: string; defaultCallbackUrl: string | null; liveMerchantId: string | null },
  ): Promise<CreatedMerchant> {
    const { merchantId, name } = merchant;
    const mode = merchant.liveMerchantId === null ? 'live' : 'test';
    const apiSecret = newApiSecret();
    const webhookSecret = newWebhookSecret();
    await manager.query(`INSERT INTO merchants (merchant_id, name, default_callback_url, mode, live_merchant_id) VALUES ($1, $2, $3, $4, $5)`, [
      merchantId,
      name,
      merchant.defaultCallbackUrl,
      mode,
      merchant.liveMerchantId,
    ]);
    await insertSecret(manager, merchantId, 'api', this.secretBox.seal(apiSecret, apiSecretAssociatedData(merchantId)));
    await insertSecret(manager, merchantId, 'webhook', this.secretBox.seal(webhookSecret, webhookSecretAssociatedData(merchantId)));
    return { merchantId, name, mode, apiSecret, webhookSecret };
  }

  /** Operators' list of merchants, newest first with the API's cursors; `mode` tells live from sandbox ones. */
  async listMerchants(filter: {
    status?: 'active' | 'suspended';
    limit: number;
    cursor?: string;
  }): Promise<{ data: Array<MerchantProfile & { mode: 'live' | 'test' }>; has_more: boolean; next_cursor: string | null }> {
    const where = new SqlConditions();
    if (filter.status !== undefined) where.add('status = ?', filter.status);
    const page = await fetchNewestFirstPage<MerchantProfileRow & { mode: 'live' | 'test'; list_position: string }>(this.dataSource, {
      select: `SELECT ${PROFILE_COLUMNS}, mode, list_position FROM merchants`,
      where,
      positionColumn: 'merchants.list_position',
      positionOf: (row) => row.list_position,
      cursor: MERCHANT_LIST_CURSOR,
      after: filter.cursor,
      limit: filter.limit,
    });
    const data = page.rows.map(({ list_position: _position, mode, ...row }) => ({ ...(profileOf(row) as MerchantProfile), mode }));
    return { data, has_more: page.hasMore, next_cursor: page.nextCursor };
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
    return this.updateProfile(merchantId, { default_callback_url: defaultCallbackUrl });
  }

  /**
   * Sets or clears (null) where the payer page links back to for pay-ins without a `return_url`
   * of their own; it holds for every such pay-in's page from now on. Null when the merchant does not exist.
   */
  async setDefaultReturnUrl(merchantId: string, defaultReturnUrl: string | null): Promise<MerchantProfile | null> {
    return this.updateProfile(merchantId, { default_return_url: defaultReturnUrl });
  }

  private async updateProfile(
    merchantId: string,
    change: { default_callback_url: string } | { default_return_url: string | null },
  ): Promise<MerchantProfile | null> {
    const [column, value] = Object.entries(change)[0];
    // TypeORM answers an UPDATE ... RETURNING with [rows, affectedCount]. The column is one of the two above, never input.
    const [rows]: [MerchantProfileRow[], number] = await this.dataSource.query(
      `UPDATE merchants SET ${column} = $2 WHERE merchant_id = $1 RETURNING ${PROFILE_COLUMNS}`,
      [merchantId, value],
    );
    return profileOf(rows[0]);
  }

  /**
   * The merchant's API secrets for the signature check, from the cache when fresh. `refresh`
   * asks for a re-read after a mismatch (see REFRESH_ON_MISMATCH_INTERVAL_MS); null when the
   * entry was read too recently to read again, so the caller keeps its answer.
   */
  async findCredentials(merchantId: string, nowMs = Date.now(), options: { refresh?: boolean } = {}): Promise<MerchantCredentials | null> {
    const cached = this.cache.get(merchantId);
    if (options.refresh) {
      if (cached && nowMs - cached.loadedAtMs < REFRESH_ON_MISMATCH_INTERVAL_MS) return null;
    } else if (cached && cached.expiresAtMs > nowMs) {
      return cached.credentials;
    }

    const rows: Array<SealedColumns & { status: 'active' | 'suspended' }> = await this.dataSource.query(
      `SELECT m.status, s.key_version, s.iv, s.auth_tag, s.ciphertext,
              s.previous_key_version, s.previous_iv, s.previous_auth_tag, s.previous_ciphertext, s.previous_valid_until
         FROM merchants m JOIN merchant_secrets s ON s.merchant_id = m.merchant_id AND s.purpose = 'api'
        WHERE m.merchant_id = $1`,
      [merchantId],
    );
    const row = rows[0];
    const associatedData = apiSecretAssociatedData(merchantId);
    const credentials: MerchantCredentials | null = row
      ? {
          merchantId,
          status: row.status,
          apiSecret: Buffer.from(this.secretBox.open(currentSealed(row), associatedData), 'utf8'),
          previousApiSecret: openPrevious(this.secretBox, row, associatedData),
        }
      : null;
    if (this.cache.size >= this.cacheEntriesMax) this.cache.clear();
    // A miss is remembered only briefly: a merchant created a moment ago must not stay "unknown".
    const ttlMs = credentials ? this.cacheTtlMs : Math.min(this.cacheTtlMs, 2_000);
    this.cache.set(merchantId, { credentials, loadedAtMs: nowMs, expiresAtMs: nowMs + ttlMs });
    return credentials;
  }

  /**
   * A new API secret, shown once; the current one keeps verifying until `overlapMs` from `now`.
   * Refused while a previous overlap runs (decideApiSecretRotation says why), unless an
   * operator ends it with a zero overlap. Other replicas learn the new secret on their first
   * mismatch; a retired one is checked against its end on every request, whatever the cache.
   */
  async rotateApiSecret(merchantId: string, overlapMs: number, now: Date, options: { endOverlapNow?: boolean } = {}): Promise<ApiSecretRotationResult> {
    const result = await this.dataSource.transaction(async (manager): Promise<ApiSecretRotationResult> => {
      const rows: Array<{ previous_valid_until: Date | null }> = await manager.query(
        `SELECT previous_valid_until FROM merchant_secrets WHERE merchant_id = $1 AND purpose = 'api' FOR UPDATE`,
        [merchantId],
      );
      if (!rows[0]) return { kind: 'not_found' };
      const decision = decideApiSecretRotation({ previousValidUntil: rows[0].previous_valid_until }, overlapMs, now, options);
      if (decision.kind === 'refuse') return { kind: 'refused', code: decision.code, previousValidUntil: decision.previousValidUntil.toISOString() };
      const apiSecret = newApiSecret();
      const sealed = this.secretBox.seal(apiSecret, apiSecretAssociatedData(merchantId));
      await manager.query(
        `UPDATE merchant_secrets
            SET previous_key_version = key_version, previous_iv = iv, previous_auth_tag = auth_tag, previous_ciphertext = ciphertext, previous_valid_until = $6,
                key_version = $2, iv = $3, auth_tag = $4, ciphertext = $5, created_at = $7
          WHERE merchant_id = $1 AND purpose = 'api'`,
        [merchantId, sealed.keyVersion, sealed.iv, sealed.authTag, sealed.ciphertext, decision.previousValidUntil, now],
      );
      return { kind: 'rotated', apiSecret, previousValidUntil: decision.previousValidUntil.toISOString() };
    });
    if (result.kind === 'rotated') this.cache.delete(merchantId);
    return result;
  }

  /** Suspends or reinstates, recording who, when and why. This replica forgets the cached status at once; others within CREDENTIAL_CACHE_TTL_MS. */
  async changeStatus(merchantId: string, action: 'suspend' | 'reinstate', change: { actor: string; reason: string; now: Date }): Promise<MerchantStatusResult> {
    const result = await this.dataSource.transaction(async (manager): Promise<MerchantStatusResult> => {
      const rows: Array<{ status: MerchantStatus }> = await manager.query(`SELECT status FROM merchants WHERE merchant_id = $1 FOR UPDATE`, [merchantId]);
      if (!rows[0]) return { kind: 'not_found' };
      const decision = decideMerchantStatus(rows[0].status, action);
      if (decision.kind === 'refuse') return { kind: 'refused', code: decision.code, status: decision.status };
      const [updated]: [MerchantProfileRow[], number] = await manager.query(
        `UPDATE merchants SET status = $2, status_changed_at = $3, status_changed_by = $4, status_reason = $5 WHERE merchant_id = $1 RETURNING ${PROFILE_COLUMNS}`,
        [merchantId, decision.status, change.now, change.actor, change.reason],
      );
      return { kind: 'changed', profile: profileOf(updated[0]) as MerchantProfile };
    });
    this.cache.delete(merchantId);
    return result;
  }

  /** The operator's view beside the profile; null when the merchant does not exist. */
  async findAccessRecord(merchantId: string, now: Date): Promise<MerchantAccessRecord | null> {
    const rows: Array<{
      status_changed_at: Date | null;
      status_changed_by: string | null;
      status_reason: string | null;
      api_until: Date | null;
      webhook_until: Date | null;
    }> = await this.dataSource.query(
      `SELECT m.status_changed_at, m.status_changed_by, m.status_reason,
                (SELECT previous_valid_until FROM merchant_secrets WHERE merchant_id = m.merchant_id AND purpose = 'api') AS api_until,
                (SELECT previous_valid_until FROM merchant_secrets WHERE merchant_id = m.merchant_id AND purpose = 'webhook') AS webhook_until
           FROM merchants m WHERE m.merchant_id = $1`,
      [merchantId],
    );
    const row = rows[0];
    if (!row) return null;
    const running = (until: Date | null) => (until && until > now ? until.toISOString() : null);
    return {
      status_changed_at: row.status_changed_at?.toISOString() ?? null,
      status_changed_by: row.status_changed_by,
      status_reason: row.status_reason,
      api_secret_previous_valid_until: running(row.api_until),
      webhook_secret_previous_valid_until: running(row.webhook_until),
    };
  }
}

const currentSealed = (row: SealedColumns): SealedSecret => ({ keyVersion: row.key_version, iv: row.iv, authTag: row.auth_tag, ciphertext: row.ciphertext });

/** The previous secret of a rotation, whatever its end: callers compare the end with their clock. */
function openPrevious(secretBox: SecretBox, row: SealedColumns, associatedData: string): VerifyingSecret | null {
  if (!row.previous_ciphertext || !row.previous_iv || !row.previous_auth_tag || !row.previous_valid_until) return null;
  const sealed = {
    keyVersion: row.previous_key_version ?? LEGACY_KEY_VERSION,
    iv: row.previous_iv,
    authTag: row.previous_auth_tag,
    ciphertext: row.previous_ciphertext,
  };
  return { secret: Buffer.from(secretBox.open(sealed, associatedData), 'utf8'), validUntil: row.previous_valid_until };
}

interface WebhookSecretRow extends SealedColumns {
  status: 'active' | 'suspended';
  default_callback_url: string | null;
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
      { secret: this.secretBox.open(currentSealed(row), associatedData), role: 'current', valid_until: null },
    ];
    const previous = openPrevious(this.secretBox, row, associatedData);
    if (previous?.validUntil && previous.validUntil > now) {
      secrets.push({ secret: previous.secret.toString('utf8'), role: 'previous', valid_until: previous.validUntil.toISOString() });
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
  await manager.query(`INSERT INTO merchant_secrets (merchant_id, purpose, key_version, iv, auth_tag, ciphertext) VALUES ($1, $2, $3, $4, $5, $6)`, [
    merchantId,
    purpose,
    sealed.keyVersion,
    sealed.iv,
    sealed.authTag,
    sealed.ciphertext,
  ]);
}
