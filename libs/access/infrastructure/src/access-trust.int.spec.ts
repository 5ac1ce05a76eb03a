/**
 * Goal: the access stores keep their promises on a real PostgreSQL: an API-secret
 * rotation keeps the previous secret sealed beside the new one and refuses a second rotation
 * during the overlap (an operator's zero overlap excepted), and a master-key re-seal still finds
 * the previous API secret; suspension records who, when and why and refuses a no-op; operator
 * tokens expire and are revoked; the audit trail filters and pages.
 */
import { randomBytes } from 'node:crypto';
import { SecretBox, SecretKeyring } from '@mp/access-domain';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import type { DataSource } from 'typeorm';
import { AccessSchema1700000002000 } from './access-schema.migration';
import { BackofficeAuditStore } from './backoffice-audit.store';
import { BackofficeCredentialStore } from './backoffice-credential.store';
import { MerchantCredentialStore } from './merchant-credential.store';
import { AccessCredentialLifetimes1700000050200 } from './credential-lifetimes.migration';
import { AccessDefaultReturnUrl1700000050390 } from './default-return-url.migration';
import { AccessOperatorIdentity1700000050000 } from './operator-identity.migration';
import { AccessSandboxMerchants1700000032100 } from './sandbox-merchants.migration';
import { AccessTrustBoundaries1700000006200 } from './trust-boundaries.migration';
import { AccessWebhookSecretRotation1700000004500 } from './webhook-secret-rotation.migration';

const HOUR_MS = 3_600_000;
const box = new SecretBox(SecretKeyring.single(randomBytes(32), 1));

describe('access stores for rotation, suspension, operator credentials and audit, on real Postgres', () => {
  let dataSource: DataSource;
  let merchants: MerchantCredentialStore;
  let credentials: BackofficeCredentialStore;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('acc', [
      AccessSchema1700000002000,
      AccessWebhookSecretRotation1700000004500,
      AccessTrustBoundaries1700000006200,
      AccessSandboxMerchants1700000032100,
      AccessOperatorIdentity1700000050000,
      AccessCredentialLifetimes1700000050200,
      AccessDefaultReturnUrl1700000050390,
    ]);
    merchants = new MerchantCredentialStore(dataSource, box, 60_000);
    credentials = new BackofficeCredentialStore(dataSource);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  it('rotates the API secret with an overlap, refuses a second rotation, and lets an operator end the overlap now', async () => {
    const merchant = await merchants.createMerchant('Rotating', null);
    const now = new Date();
    const first = await merchants.rotateApiSecret(merchant.merchantId, 24 * HOUR_MS, now);
    if (first.kind !== 'rotated') throw new Error(`expected a rotation, got ${first.kind}`);
    expect(first.previousValidUntil).toBe(new Date(now.getTime() + 24 * HOUR_MS).toISOString());
    const read = await merchants.findCredentials(merchant.merchantId);
    expect(read?.apiSecret.toString('utf8')).toBe(first.apiSecret);
    expect(read?.previousApiSecret?.secret.toString('utf8')).toBe(merchant.apiSecret);

    expect(await merchants.rotateApiSecret(merchant.merchantId, HOUR_MS, now)).toEqual({
      kind: 'refused',
      code: 'SECRET_ROTATION_IN_PROGRESS',
      previousValidUntil: first.previousValidUntil,
    });
    const emergency = await merchants.rotateApiSecret(merchant.merchantId, 0, now, { endOverlapNow: true });
    expect(emergency.kind).toBe('rotated');
    const afterEmergency = await merchants.findCredentials(merchant.merchantId);
    expect(afterEmergency?.previousApiSecret?.validUntil).toEqual(now);
    expect(await merchants.rotateApiSecret('mch_000000000000000000000000', HOUR_MS, now)).toEqual({ kind: 'not_found' });
  });

  it('creates one sandbox merchant per live merchant, test_ and its id, with secrets of its own', async () => {
    const live = await merchants.createMerchant('Live shop', 'https://shop.example/cb');
    const created = await merchants.createTestMerchant(live.merchantId);
    if (created.kind !== 'created') throw new Error(`expected a sandbox merchant, got ${created.kind}`);
    expect(created.merchant).toMatchObject({ merchantId: `test_${live.merchantId}`, name: 'Live shop (test)', mode: 'test' });
    expect([created.merchant.apiSecret, created.merchant.webhookSecret]).not.toContain(live.apiSecret);
    expect(created.merchant.webhookSecret).not.toBe(live.webhookSecret);
    expect((await merchants.findCredentials(created.merchant.merchantId))?.apiSecret.toString('utf8')).toBe(created.merchant.apiSecret);
    expect(await merchants.findProfile(created.merchant.merchantId)).toMatchObject({ default_callback_url: 'https://shop.example/cb' });
    expect(await dataSource.query(`SELECT mode, live_merchant_id FROM merchants WHERE merchant_id = $1`, [created.merchant.merchantId])).toEqual([
      { mode: 'test', live_merchant_id: live.merchantId },
    ]);

    expect(await merchants.createTestMerchant(live.merchantId)).toEqual({ kind: 'exists', merchantId: created.merchant.merchantId });
    expect(await merchants.createTestMerchant(created.merchant.merchantId)).toEqual({ kind: 'not_live' });
    expect(await merchants.createTestMerchant('mch_000000000000000000000000')).toEqual({ kind: 'not_found' });
    // The table keeps the prefix, the mode and the link consistent whoever writes it.
    await expect(dataSource.query(`INSERT INTO merchants (merchant_id, name, mode) VALUES ('test_mch_111111111111111111111111', 'x', 'live')`)).rejects.toThrow(
      /merchants_test_mode_linked/,
    );
  });

  it('finds a secret rotated elsewhere only when asked to refresh, and not twice within a second', async () => {
    const merchant = await merchants.createMerchant('Cached', null);
    const t0 = Date.now();
    await merchants.findCredentials(merchant.merchantId, t0);
    // Another replica's rotation: straight in the table, this store's cache untouched.
    await new MerchantCredentialStore(dataSource, box, 60_000).rotateApiSecret(merchant.merchantId, HOUR_MS, new Date());
    expect((await merchants.findCredentials(merchant.merchantId, t0 + 10))?.previousApiSecret).toBeNull();
    expect(await merchants.findCredentials(merchant.merchantId, t0 + 500, { refresh: true })).toBeNull();
    expect((await merchants.findCredentials(merchant.merchantId, t0 + 1_500, { refresh: true }))?.previousApiSecret?.secret.toString('utf8')).toBe(
      merchant.apiSecret,
    );
  });

  it('suspends and reinstates with who, when and why, and refuses a change that changes nothing', async () => {
    const merchant = await merchants.createMerchant('Suspended', null);
    const now = new Date('2026-11-26T03:00:00.000Z');
    const suspended = await merchants.changeStatus(merchant.merchantId, 'suspend', { actor: 'cred_a', reason: 'fraud review', now });
    expect(suspended).toMatchObject({ kind: 'changed', profile: { status: 'suspended' } });
    expect((await merchants.findCredentials(merchant.merchantId))?.status).toBe('suspended');
    expect(await merchants.findAccessRecord(merchant.merchantId, new Date())).toMatchObject({
      status_changed_at: now.toISOString(),
      status_changed_by: 'cred_a',
      status_reason: 'fraud review',
    });
    expect(await merchants.changeStatus(merchant.merchantId, 'suspend', { actor: 'cred_b', reason: 'again', now })).toEqual({
      kind: 'refused',
      code: 'MERCHANT_STATUS_CONFLICT',
      status: 'suspended',
    });
    expect(await merchants.changeStatus(merchant.merchantId, 'reinstate', { actor: 'cred_b', reason: 'cleared', now })).toMatchObject({
      kind: 'changed',
      profile: { status: 'active' },
    });
    expect(await merchants.changeStatus('mch_000000000000000000000000', 'suspend', { actor: 'cred_b', reason: 'x', now })).toEqual({ kind: 'not_found' });
  });

  it('expires and revokes operator tokens, and lists credentials without tokens', async () => {
    const now = new Date();
    const created = await credentials.create('operator', 'Short', { expiresAt: new Date(now.getTime() + HOUR_MS) });
    expect(await credentials.authenticate(created.token, now)).toMatchObject({ ok: true, principal: { credentialId: created.credentialId, role: 'operator' } });
    expect(await credentials.authenticate(created.token, new Date(now.getTime() + HOUR_MS))).toEqual({ ok: false, code: 'CREDENTIAL_EXPIRED' });
    const defaulted = await credentials.create('operator', 'Default');
    expect(defaulted.expiresAt?.getTime()).toBeGreaterThan(now.getTime() + 89 * 24 * HOUR_MS);

    expect(await credentials.revoke(defaulted.credentialId, 'cred_admin', now)).toMatchObject({
      kind: 'revoked',
      credential: { state: 'revoked', revoked_by: 'cred_admin' },
    });
    expect(await credentials.authenticate(defaulted.token, now)).toEqual({ ok: false, code: 'CREDENTIAL_REVOKED' });
    expect((await credentials.revoke(defaulted.credentialId, 'cred_admin', now)).kind).toBe('already_revoked');
    expect(await credentials.authenticate(`bo_${'A'.repeat(43)}`, now)).toEqual({ ok: false, code: 'INVALID_API_KEY' });
    await expect(
      dataSource.query(`INSERT INTO backoffice_credentials (credential_id, role, name, token_sha256) VALUES ('cred_x', 'operator', 'x', 'x')`),
    ).rejects.toThrow(/backoffice_credential_expires/);

    const listed = await credentials.list('operator', now);
    expect(listed.map((credential) => [credential.name, credential.state])).toEqual(
      expect.arrayContaining([
        ['Short', 'active'],
        ['Default', 'revoked'],
      ]),
    );
    expect(JSON.stringify(listed)).not.toContain(created.token);
  });

  it('lists the audit trail newest first, by actor or merchant, in pages', async () => {
    const audit = new BackofficeAuditStore(dataSource);
    const principal = { credentialId: 'cred_auditor', role: 'operator' as const, agentId: null, name: 'Auditor' };
    for (const [index, merchantId] of ['mch_a', 'mch_b', 'mch_a'].entries()) {
      await audit.record({
        principal,
        action: 'POST /backoffice/v1/merchants/:merchantId/suspend',
        path: `/x/${index}`,
        merchantId,
        statusCode: 200,
        errorCode: null,
        reason: `r${index}`,
        occurredAt: new Date(),
      });
    }
    const byActor = await audit.list({ actorCredentialId: 'cred_auditor', limit: 10 });
    expect(byActor.map((entry) => entry.reason)).toEqual(['r2', 'r1', 'r0']);
    expect((await audit.list({ merchantId: 'mch_a', limit: 10 })).map((entry) => entry.reason)).toEqual(['r2', 'r0']);
    const firstPage = await audit.list({ actorCredentialId: 'cred_auditor', limit: 2 });
    expect((await audit.list({ actorCredentialId: 'cred_auditor', beforeAuditId: firstPage[1]?.audit_id, limit: 2 })).map((entry) => entry.reason)).toEqual([
      'r0',
    ]);
  });
});
