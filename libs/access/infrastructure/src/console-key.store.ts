import { randomBytes } from 'node:crypto';
import { checkBackofficeCredential, credentialExpiry, credentialState, storedCredentialHash as sha256, type CredentialState } from '@mp/access-domain';
import type { DataSource } from 'typeorm';

/** How long a console key works unless the operator says otherwise. */
export const CONSOLE_KEY_LIFETIME_DAYS_DEFAULT = 90;
export const CONSOLE_KEY_ID_PATTERN = /^ckey_[0-9a-f]{24}$/;
const CONSOLE_KEY_PATTERN = /^mck_[A-Za-z0-9_-]{43}$/;

/** A console key as operators list it: never the key, nor its hash. */
export interface ConsoleKeyView {
  key_id: string;
  merchant_id: string;
  created_at: string;
  created_by: string | null;
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  state: CredentialState;
}

export interface CreatedConsoleKey {
  key_id: string;
  /** Shown once at creation, never again. */
  console_key: string;
  merchant_id: string;
  created_at: string;
  expires_at: string;
}

export type ConsoleKeyAuthentication = { ok: true; keyId: string; merchantId: string } | { ok: false };
export type ConsoleKeyRevocation = { kind: 'revoked' | 'already_revoked'; key: ConsoleKeyView } | { kind: 'not_found' };

interface KeyRow {
  key_id: string;
  merchant_id: string;
  created_at: Date;
  created_by: string | null;
  expires_at: Date;
  revoked_at: Date | null;
  revoked_by: string | null;
}

const COLUMNS = 'key_id, merchant_id, created_at, created_by, expires_at, revoked_at, revoked_by';

function viewOf(row: KeyRow, now: Date): ConsoleKeyView {
  return {
    key_id: row.key_id,
    merchant_id: row.merchant_id,
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at?.toISOString() ?? null,
    revoked_by: row.revoked_by,
    state: credentialState({ expiresAt: row.expires_at, revokedAt: row.revoked_at }, now),
  };
}

/**
 * Merchant console keys (`mck_…`): they open the console as one merchant and nothing else. The
 * `mck_` prefix never matches the back-office guard's `bo_` tokens, the table is not the one the
 * guard reads, and /v2 takes only HMAC signatures: a console key signs nothing by itself.
 */
export class ConsoleKeyStore {
  constructor(private readonly dataSource: DataSource) {}

  /** Null when the merchant does not exist. */
  async create(merchantId: string, options: { createdBy?: string | null; now?: Date; lifetimeDays?: number } = {}): Promise<CreatedConsoleKey | null> {
    const now = options.now ?? new Date();
    const keyId = `ckey_${randomBytes(12).toString('hex')}`;
    const consoleKey = `mck_${randomBytes(32).toString('base64url')}`;
    const expiresAt = credentialExpiry(now, options.lifetimeDays ?? CONSOLE_KEY_LIFETIME_DAYS_DEFAULT);
    // TypeORM answers an INSERT ... RETURNING with its rows (an UPDATE with [rows, count]).
    const rows: KeyRow[] = await this.dataSource.query(
      `INSERT INTO merchant_console_keys (key_id, merchant_id, key_sha256, created_at, created_by, expires_at)
       SELECT $1, merchant_id, $3, $4, $5, $6 FROM merchants WHERE merchant_id = $2
       RETURNING ${COLUMNS}`,
      [keyId, merchantId, sha256(consoleKey), now, options.createdBy ?? null, expiresAt],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      key_id: row.key_id,
      console_key: consoleKey,
      merchant_id: row.merchant_id,
      created_at: row.created_at.toISOString(),
      expires_at: row.expires_at.toISOString(),
    };
  }

  /** Which merchant a key opens, if it is known, unexpired and unrevoked; why not is never told. */
  async authenticate(consoleKey: string, now = new Date()): Promise<ConsoleKeyAuthentication> {
    if (!CONSOLE_KEY_PATTERN.test(consoleKey)) return { ok: false };
    const rows: KeyRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM merchant_console_keys WHERE key_sha256 = $1`, [sha256(consoleKey)]);
    const row = rows[0];
    if (!row || !checkBackofficeCredential({ expiresAt: row.expires_at, revokedAt: row.revoked_at }, now).ok) return { ok: false };
    return { ok: true, keyId: row.key_id, merchantId: row.merchant_id };
  }

  /** Whether a key still works (a console session checks it on every request). */
  async isActive(keyId: string, now = new Date()): Promise<boolean> {
    const rows: KeyRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM merchant_console_keys WHERE key_id = $1`, [keyId]);
    return rows[0] !== undefined && checkBackofficeCredential({ expiresAt: rows[0].expires_at, revokedAt: rows[0].revoked_at }, now).ok;
  }

  /** A merchant's keys, newest first; never a key. */
  async list(merchantId: string, now = new Date()): Promise<ConsoleKeyView[]> {
    const rows: KeyRow[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM merchant_console_keys WHERE merchant_id = $1 ORDER BY created_at DESC, key_id`, [
      merchantId,
    ]);
    return rows.map((row) => viewOf(row, now));
  }

  /** Revokes at once and for good; the merchant's open console sessions end with it. */
  async revoke(merchantId: string, keyId: string, revokedBy: string, now = new Date()): Promise<ConsoleKeyRevocation> {
    return this.dataSource.transaction(async (manager): Promise<ConsoleKeyRevocation> => {
      const rows: KeyRow[] = await manager.query(`SELECT ${COLUMNS} FROM merchant_console_keys WHERE key_id = $1 AND merchant_id = $2 FOR UPDATE`, [
        keyId,
        merchantId,
      ]);
      const row = rows[0];
      if (!row) return { kind: 'not_found' };
      if (row.revoked_at !== null) return { kind: 'already_revoked', key: viewOf(row, now) };
      const [updated]: [KeyRow[], number] = await manager.query(
        `UPDATE merchant_console_keys SET revoked_at = $2, revoked_by = $3 WHERE key_id = $1 RETURNING ${COLUMNS}`,
        [keyId, now, revokedBy],
      );
      await manager.query(`DELETE FROM console_sessions WHERE console_key_id = $1`, [keyId]);
      return { kind: 'revoked', key: viewOf(updated[0] as KeyRow, now) };
    });
  }
}
