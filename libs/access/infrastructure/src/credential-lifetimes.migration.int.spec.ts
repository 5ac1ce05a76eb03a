/**
 * Goal: the credential-lifetimes migration gives every agent credential from before an expiry
 * (the default 90 days from the upgrade, so no agent is locked out by it), lets an agent hold a
 * second credential (the renewal overlap), and refuses a credential without an expiry from then
 * on. The stores then keep the caps on live credentials: an agent holds at most two live ones,
 * and an operator at most his cap of live credentials he issued, revoked and expired ones not
 * counted. Method: a private database migrated up to the release before, legacy rows written as
 * that release wrote them, then the migration itself; the stores on the result.
 */
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { AccessSchema1700000002000 } from './access-schema.migration';
import { BackofficeCredentialStore } from './backoffice-credential.store';
import { AccessCredentialLifetimes1700000050200 } from './credential-lifetimes.migration';
import { AccessOperatorIdentity1700000050000 } from './operator-identity.migration';
import { AccessTrustBoundaries1700000006200 } from './trust-boundaries.migration';
import { AccessWebhookSecretRotation1700000004500 } from './webhook-secret-rotation.migration';

const DAY_MS = 86_400_000;

describe('credential lifetimes migration (existing agent credentials) and the live-credential caps', () => {
  let dataSource: DataSource;
  let credentials: BackofficeCredentialStore;
  let upgradedAt: number;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('credlife', [
      AccessSchema1700000002000,
      AccessWebhookSecretRotation1700000004500,
      AccessTrustBoundaries1700000006200,
      AccessOperatorIdentity1700000050000,
    ]);
    await dataSource.query(
      `INSERT INTO backoffice_credentials (credential_id, role, agent_id, name, token_sha256) VALUES ('cred_00000000000000000000000a', 'agent', 'agt_00000000000000000000000a', 'Ivan', 'sha-a')`,
    );
    await dataSource.query(
      `INSERT INTO backoffice_credentials (credential_id, role, agent_id, name, token_sha256, active) VALUES ('cred_00000000000000000000000b', 'agent', 'agt_00000000000000000000000b', 'Gone', 'sha-b', false)`,
    );
    upgradedAt = Date.now();
    const runner = dataSource.createQueryRunner();
    try {
      await new AccessCredentialLifetimes1700000050200().up(runner);
    } finally {
      await runner.release();
    }
    credentials = new BackofficeCredentialStore(dataSource);
  });
  afterAll(async () => dataSource?.destroy());

  it('gives every agent credential from before 90 days from the upgrade', async () => {
    const rows: Array<{ credential_id: string; expires_at: Date }> = await dataSource.query(
      `SELECT credential_id, expires_at FROM backoffice_credentials ORDER BY credential_id`,
    );
    expect(rows.map((row) => row.credential_id)).toEqual(['cred_00000000000000000000000a', 'cred_00000000000000000000000b']);
    for (const row of rows) expect(Math.abs(row.expires_at.getTime() - (upgradedAt + 90 * DAY_MS))).toBeLessThan(60_000);
  });

  it('refuses a credential without an expiry from then on', async () => {
    await expect(
      dataSource.query(
        `INSERT INTO backoffice_credentials (credential_id, role, agent_id, name, token_sha256) VALUES ('cred_00000000000000000000000c', 'agent', 'agt_00000000000000000000000c', 'x', 'sha-c')`,
      ),
    ).rejects.toThrow(/backoffice_credential_expires/);
  });

  it('renews an agent from before with an overlap, up to two live credentials, and again once one is revoked', async () => {
    const now = new Date();
    const renewal = await credentials.issueAgent('agt_00000000000000000000000a', 'Ivan, renewed', {
      expiresAt: new Date(now.getTime() + 30 * DAY_MS),
      liveMax: 2,
      now,
    });
    expect(renewal.kind).toBe('issued');
    const third = await credentials.issueAgent('agt_00000000000000000000000a', 'Ivan, third', { liveMax: 2, now });
    expect(third).toEqual({ kind: 'limit_reached', live: 2 });
    expect(await credentials.issueAgent('agt_000000000000000000000999', 'Nobody', { liveMax: 2, now })).toEqual({ kind: 'not_found' });

    const listed = await credentials.listForAgent('agt_00000000000000000000000a', now);
    expect(listed.map((view) => [view.name, view.state])).toEqual([
      ['Ivan, renewed', 'active'],
      ['Ivan', 'active'],
    ]);
    await credentials.revoke('cred_00000000000000000000000a', 'cred_operator', now);
    expect((await credentials.issueAgent('agt_00000000000000000000000a', 'Ivan, third', { liveMax: 2, now })).kind).toBe('issued');

    // A deactivated agent's credentials say so, count as none live, and a renewal gives it a working one.
    expect((await credentials.listForAgent('agt_00000000000000000000000b', now)).map((view) => view.state)).toEqual(['deactivated']);
    const renewed = await credentials.issueAgent('agt_00000000000000000000000b', 'Back', { liveMax: 1, now });
    expect(renewed.kind).toBe('issued');
    if (renewed.kind === 'issued') expect((await credentials.authenticate(renewed.credential.token, now)).ok).toBe(true);
  });

  it('caps the live operator credentials one operator issued; an expired one frees a place', async () => {
    const now = new Date();
    const issuer = await credentials.create('operator', 'Issuer', { mayIssueOperators: true });
    const first = await credentials.issueOperator('Short', { issuer, liveMax: 2, now, expiresAt: new Date(now.getTime() + DAY_MS) });
    expect((await credentials.issueOperator('Second', { issuer, liveMax: 2, now })).kind).toBe('issued');
    expect(await credentials.issueOperator('Third', { issuer, liveMax: 2, now })).toEqual({ kind: 'limit_reached', live: 2 });
    // What another operator issued is not counted against this one.
    const other = await credentials.create('operator', 'Other', { mayIssueOperators: true });
    expect((await credentials.issueOperator('By other', { issuer: other, liveMax: 2, now })).kind).toBe('issued');
    expect(first.kind).toBe('issued');

    const dayLater = new Date(now.getTime() + DAY_MS + 1_000);
    expect((await credentials.issueOperator('Third', { issuer, liveMax: 2, now: dayLater })).kind).toBe('issued');
  });
});
