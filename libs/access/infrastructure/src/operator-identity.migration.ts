import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Operators as people, not tokens (docs/operations/operators.md). Every operator credential now belongs to an operator (`operator_id`, `op_…`):
 * the four-eyes rule compares operators, so a second credential of the same person approves
 * nothing. `issuer_chain` holds, oldest first, the operators who issued this credential and its
 * issuers' credentials: a credential that the requester (or anyone he issued) made cannot approve
 * his request either. `may_issue_operators` is the one power to make operator credentials.
 *
 * Existing rows: each operator credential was its own person (the credential id, renamed
 * `op_…`); its chain is rebuilt from `created_by`; the credentials that the bootstrap command
 * made (no `created_by`) keep the power to issue, and those issued through the API lose it.
 */
export class AccessOperatorIdentity1700000050000 implements MigrationInterface {
  name = 'AccessOperatorIdentity1700000050000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE backoffice_credentials
        ADD COLUMN operator_id TEXT,
        ADD COLUMN issuer_chain TEXT[] NOT NULL DEFAULT '{}',
        ADD COLUMN may_issue_operators BOOLEAN NOT NULL DEFAULT false`);
    await queryRunner.query(`UPDATE backoffice_credentials SET operator_id = 'op_' || substr(credential_id, 6) WHERE role = 'operator'`);
    await queryRunner.query(`UPDATE backoffice_credentials SET may_issue_operators = true WHERE role = 'operator' AND created_by IS NULL`);
    await queryRunner.query(`
      WITH RECURSIVE ancestry (credential_id, ancestor, depth) AS (
        SELECT credential_id, created_by, 1 FROM backoffice_credentials WHERE role = 'operator' AND created_by IS NOT NULL
        UNION ALL
        SELECT ancestry.credential_id, issuer.created_by, ancestry.depth + 1
          FROM ancestry JOIN backoffice_credentials issuer ON issuer.credential_id = ancestry.ancestor
         WHERE issuer.created_by IS NOT NULL AND ancestry.depth < 100
      )
      UPDATE backoffice_credentials credential
         SET issuer_chain = chains.chain
        FROM (SELECT ancestry.credential_id, array_agg(issuer.operator_id ORDER BY ancestry.depth DESC) AS chain
                FROM ancestry JOIN backoffice_credentials issuer ON issuer.credential_id = ancestry.ancestor AND issuer.role = 'operator'
               GROUP BY ancestry.credential_id) chains
       WHERE credential.credential_id = chains.credential_id`);
    await queryRunner.query(
      `ALTER TABLE backoffice_credentials ADD CONSTRAINT backoffice_operator_has_identity CHECK (role <> 'operator' OR operator_id IS NOT NULL)`,
    );
    await queryRunner.query(`CREATE INDEX backoffice_credentials_operator ON backoffice_credentials (operator_id) WHERE operator_id IS NOT NULL`);
    // Who an operator issued, directly or down the line (relatedOperators).
    await queryRunner.query(`CREATE INDEX backoffice_credentials_issuer_chain ON backoffice_credentials USING gin (issuer_chain)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX backoffice_credentials_issuer_chain`);
    await queryRunner.query(`DROP INDEX backoffice_credentials_operator`);
    await queryRunner.query(
      `ALTER TABLE backoffice_credentials DROP CONSTRAINT backoffice_operator_has_identity, DROP COLUMN may_issue_operators, DROP COLUMN issuer_chain, DROP COLUMN operator_id`,
    );
  }
}
