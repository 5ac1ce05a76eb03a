import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 20, access: who suspended a merchant and why; operator credentials that expire and can
 * be revoked; the back-office audit trail. API-secret rotation reuses the previous-secret
 * columns the webhook rotation added to merchant_secrets (any purpose).
 */
export class AccessTrustBoundaries1700000006200 implements MigrationInterface {
  name = 'AccessTrustBoundaries1700000006200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE merchants
        ADD COLUMN status_changed_at TIMESTAMPTZ,
        ADD COLUMN status_changed_by TEXT,
        ADD COLUMN status_reason TEXT`);
    // Operators created before expiry existed get the default 90 days from now, not from their
    // creation: an upgrade must not lock every operator out at once.
    await queryRunner.query(`
      ALTER TABLE backoffice_credentials
        ADD COLUMN expires_at TIMESTAMPTZ,
        ADD COLUMN revoked_at TIMESTAMPTZ,
        ADD COLUMN revoked_by TEXT,
        ADD COLUMN created_by TEXT`);
    await queryRunner.query(`UPDATE backoffice_credentials SET expires_at = now() + interval '90 days' WHERE role = 'operator'`);
    await queryRunner.query(
      `ALTER TABLE backoffice_credentials ADD CONSTRAINT backoffice_operator_expires CHECK (role <> 'operator' OR expires_at IS NOT NULL)`,
    );
    // Append-only: the gateway inserts and reads, never updates or deletes.
    await queryRunner.query(`
      CREATE TABLE backoffice_audit (
        audit_id BIGSERIAL PRIMARY KEY,
        occurred_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        actor_credential_id TEXT NOT NULL,
        actor_role TEXT NOT NULL,
        actor_name TEXT NOT NULL,
        action TEXT NOT NULL,
        path TEXT NOT NULL,
        merchant_id TEXT,
        status_code INTEGER NOT NULL,
        error_code TEXT,
        reason TEXT
      )`);
    await queryRunner.query(`CREATE INDEX backoffice_audit_actor ON backoffice_audit (actor_credential_id, audit_id DESC)`);
    await queryRunner.query(`CREATE INDEX backoffice_audit_merchant ON backoffice_audit (merchant_id, audit_id DESC) WHERE merchant_id IS NOT NULL`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE backoffice_audit`);
    await queryRunner.query(
      `ALTER TABLE backoffice_credentials DROP CONSTRAINT backoffice_operator_expires, DROP COLUMN expires_at, DROP COLUMN revoked_at, DROP COLUMN revoked_by, DROP COLUMN created_by`,
    );
    await queryRunner.query(`ALTER TABLE merchants DROP COLUMN status_changed_at, DROP COLUMN status_changed_by, DROP COLUMN status_reason`);
  }
}
