/**
 * Goal: the operator-identity migration turns every existing operator credential into an
 * operator of its own, rebuilds each one's issuance chain from `created_by` (oldest issuer
 * first), and leaves the power to issue only with the credentials the bootstrap command made.
 * Method: a private database migrated up to the release before, legacy rows written as that
 * release wrote them, then the migration itself.
 */
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { AccessSchema1700000002000 } from './access-schema.migration';
import { AccessOperatorIdentity1700000050000 } from './operator-identity.migration';
import { AccessTrustBoundaries1700000006200 } from './trust-boundaries.migration';
import { AccessWebhookSecretRotation1700000004500 } from './webhook-secret-rotation.migration';

describe('operator identity migration (existing credentials)', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('opid', [
      AccessSchema1700000002000,
      AccessWebhookSecretRotation1700000004500,
      AccessTrustBoundaries1700000006200,
    ]);
    const legacy = (id: string, role: string, createdBy: string | null) =>
      dataSource.query(
        `INSERT INTO backoffice_credentials (credential_id, role, agent_id, name, token_sha256, created_by, expires_at) VALUES ($1, $2, $3, $1, $4, $5, $6)`,
        [id, role, role === 'agent' ? `agt_${id}` : null, `sha-${id}`, createdBy, role === 'operator' ? new Date(Date.now() + 86_400_000) : null],
      );
    // root (bootstrap) → child (issued by root) → grandchild (issued by child); an agent; another root.
    await legacy('cred_00000000000000000000000a', 'operator', null);
    await legacy('cred_00000000000000000000000b', 'operator', 'cred_00000000000000000000000a');
    await legacy('cred_00000000000000000000000c', 'operator', 'cred_00000000000000000000000b');
    await legacy('cred_00000000000000000000000d', 'agent', null);
    await legacy('cred_00000000000000000000000e', 'operator', null);
    const runner = dataSource.createQueryRunner();
    try {
      await new AccessOperatorIdentity1700000050000().up(runner);
    } finally {
      await runner.release();
    }
  });
  afterAll(async () => dataSource?.destroy());

  it('gives each operator credential an operator, its chain oldest first, and the power to issue to bootstrap ones only', async () => {
    const rows: Array<{ credential_id: string; operator_id: string | null; issuer_chain: string[]; may_issue_operators: boolean }> = await dataSource.query(
      `SELECT credential_id, operator_id, issuer_chain, may_issue_operators FROM backoffice_credentials ORDER BY credential_id`,
    );
    expect(rows.map((row) => [row.credential_id.slice(-1), row.operator_id, row.issuer_chain, row.may_issue_operators])).toEqual([
      ['a', 'op_00000000000000000000000a', [], true],
      ['b', 'op_00000000000000000000000b', ['op_00000000000000000000000a'], false],
      ['c', 'op_00000000000000000000000c', ['op_00000000000000000000000a', 'op_00000000000000000000000b'], false],
      ['d', null, [], false],
      ['e', 'op_00000000000000000000000e', [], true],
    ]);
  });

  it('refuses an operator credential without an operator from then on', async () => {
    await expect(
      dataSource.query(
        `INSERT INTO backoffice_credentials (credential_id, role, name, token_sha256, expires_at) VALUES ('cred_00000000000000000000000f', 'operator', 'x', 'sha-f', now() + interval '1 day')`,
      ),
    ).rejects.toThrow(/backoffice_operator_has_identity/);
  });
});
