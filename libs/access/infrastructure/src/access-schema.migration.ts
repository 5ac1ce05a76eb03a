import type { MigrationInterface, QueryRunner } from 'typeorm';

/** Merchant identities and their credentials, owned by the gateway's access context. */
export class AccessSchema1700000002000 implements MigrationInterface {
  name = 'AccessSchema1700000002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE merchants (
        merchant_id TEXT PRIMARY KEY,
        name TEXT NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
        status TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
        default_callback_url TEXT,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now()
      )`);
    // Secrets are stored only as AES-256-GCM ciphertext; the master key never touches the database.
    await queryRunner.query(`
      CREATE TABLE merchant_secrets (
        merchant_id TEXT NOT NULL REFERENCES merchants (merchant_id),
        purpose TEXT NOT NULL CHECK (purpose IN ('api', 'webhook')),
        key_version INTEGER NOT NULL,
        iv BYTEA NOT NULL,
        auth_tag BYTEA NOT NULL,
        ciphertext BYTEA NOT NULL,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        PRIMARY KEY (merchant_id, purpose)
      )`);
    // Operators and payment agents use bearer tokens on the back-office API. Only a SHA-256 of
    // each token is kept: unlike HMAC secrets, a bearer token never has to be recovered.
    await queryRunner.query(`
      CREATE TABLE backoffice_credentials (
        credential_id TEXT PRIMARY KEY,
        role TEXT NOT NULL CHECK (role IN ('operator', 'agent')),
        agent_id TEXT UNIQUE,
        name TEXT NOT NULL,
        token_sha256 TEXT NOT NULL UNIQUE,
        active BOOLEAN NOT NULL DEFAULT true,
        created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        CHECK ((role = 'agent') = (agent_id IS NOT NULL))
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE backoffice_credentials`);
    await queryRunner.query(`DROP TABLE merchant_secrets`);
    await queryRunner.query(`DROP TABLE merchants`);
  }
}
