import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The console (issue 24), in the gateway database:
 * - `merchant_console_keys`: a credential that only opens the console for one merchant (`mck_…`,
 *   kept as its SHA-256). A table of its own rather than a role of `backoffice_credentials`, so
 *   no query of the back-office guard can ever find one;
 * - `console_sessions`: browser sessions, found by the SHA-256 of the cookie's value. An agent's
 *   or operator's bearer token is kept sealed (the gateway's secret box), never in the clear.
 */
export class AccessConsole1700000040000 implements MigrationInterface {
  name = 'AccessConsole1700000040000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE merchant_console_keys (
        key_id TEXT PRIMARY KEY,
        merchant_id TEXT NOT NULL REFERENCES merchants (merchant_id),
        key_sha256 TEXT NOT NULL UNIQUE,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        created_by TEXT,
        expires_at TIMESTAMPTZ NOT NULL,
        revoked_at TIMESTAMPTZ,
        revoked_by TEXT
      )`);
    await queryRunner.query(`CREATE INDEX merchant_console_keys_merchant ON merchant_console_keys (merchant_id, created_at DESC)`);
    await queryRunner.query(`
      CREATE TABLE console_sessions (
        session_sha256 TEXT PRIMARY KEY,
        role TEXT NOT NULL CHECK (role IN ('merchant', 'agent', 'operator')),
        subject_id TEXT NOT NULL,
        merchant_id TEXT,
        console_key_id TEXT REFERENCES merchant_console_keys (key_id),
        credential_id TEXT,
        display_name TEXT NOT NULL,
        csrf_token TEXT NOT NULL,
        bearer_key_version INTEGER,
        bearer_iv BYTEA,
        bearer_auth_tag BYTEA,
        bearer_ciphertext BYTEA,
        created_at TIMESTAMPTZ NOT NULL,
        last_seen_at TIMESTAMPTZ NOT NULL,
        expires_at TIMESTAMPTZ NOT NULL,
        CHECK ((role = 'merchant') = (merchant_id IS NOT NULL AND console_key_id IS NOT NULL)),
        CHECK ((role = 'merchant') = (bearer_ciphertext IS NULL))
      )`);
    await queryRunner.query(`CREATE INDEX console_sessions_expiry ON console_sessions (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE console_sessions`);
    await queryRunner.query(`DROP TABLE merchant_console_keys`);
  }
}
