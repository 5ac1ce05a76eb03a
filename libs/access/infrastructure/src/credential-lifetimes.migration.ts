import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every back-office credential expires, and an agent may hold more than one (a renewal overlaps
 * the credential it replaces: docs/operations/agents.md). The one-credential-per-agent
 * uniqueness becomes a plain index. Agent credentials from before get the default agent lifetime
 * (90 days) from the upgrade, not from their creation: an upgrade must not lock every agent out
 * at once. Deactivated and revoked ones get it too, so the NOT NULL holds for every row.
 *
 * The audit trail gets `details`: what an action made, for whom and until when (an issued
 * credential's id, holder and expiry), which the route and status alone do not say.
 */
export class AccessCredentialLifetimes1700000050200 implements MigrationInterface {
  name = 'AccessCredentialLifetimes1700000050200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE backoffice_credentials DROP CONSTRAINT backoffice_credentials_agent_id_key`);
    await queryRunner.query(`CREATE INDEX backoffice_credentials_agent ON backoffice_credentials (agent_id) WHERE agent_id IS NOT NULL`);
    await queryRunner.query(`UPDATE backoffice_credentials SET expires_at = now() + interval '90 days' WHERE role = 'agent' AND expires_at IS NULL`);
    await queryRunner.query(`ALTER TABLE backoffice_credentials DROP CONSTRAINT backoffice_operator_expires`);
    await queryRunner.query(`ALTER TABLE backoffice_credentials ADD CONSTRAINT backoffice_credential_expires CHECK (expires_at IS NOT NULL)`);
    // Who issued operator credentials (the live-credential cap counts by the chain's last issuer).
    await queryRunner.query(
      `CREATE INDEX backoffice_credentials_direct_issuer ON backoffice_credentials ((issuer_chain[cardinality(issuer_chain)])) WHERE role = 'operator'`,
    );
    await queryRunner.query(`ALTER TABLE backoffice_audit ADD COLUMN details JSONB`);
  }

  /** Refused while an agent holds two credentials: the old uniqueness cannot come back without dropping one. */
  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE backoffice_audit DROP COLUMN details`);
    await queryRunner.query(`DROP INDEX backoffice_credentials_direct_issuer`);
    await queryRunner.query(`ALTER TABLE backoffice_credentials DROP CONSTRAINT backoffice_credential_expires`);
    await queryRunner.query(
      `ALTER TABLE backoffice_credentials ADD CONSTRAINT backoffice_operator_expires CHECK (role <> 'operator' OR expires_at IS NOT NULL)`,
    );
    await queryRunner.query(`DROP INDEX backoffice_credentials_agent`);
    await queryRunner.query(`ALTER TABLE backoffice_credentials ADD CONSTRAINT backoffice_credentials_agent_id_key UNIQUE (agent_id)`);
  }
}
