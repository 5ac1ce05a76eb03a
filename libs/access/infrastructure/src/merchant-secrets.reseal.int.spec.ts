/**
 * Goal: the gateway's master key can be rotated on a running system (docs/operations/master-key-rotation.md), on a real
 * PostgreSQL: secrets sealed with key v1 still open once v2 is current and v1 retired; the
 * re-seal moves every API secret, webhook secret and previous (overlap) webhook secret to v2, in
 * batches, idempotently, without overwriting a secret a running gateway rotates meanwhile; then
 * everything opens with v1 removed. Method: the gateway's migrations on a private database, the
 * stores the gateway and its operator command use, keyrings as the config builds them.
 */
import { randomBytes } from 'node:crypto';
import { SecretBox, SecretKeyring } from '@mp/access-domain';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import { nothingRemains, resealRetiredValues, type ResealableStore } from '@mp/shared-util-secret-box';
import type { DataSource } from 'typeorm';
import { AccessSchema1700000002000 } from './access-schema.migration';
import { MerchantCredentialStore, WebhookSecretStore, type CreatedMerchant } from './merchant-credential.store';
import { MerchantSecretsResealStore, type MerchantSecretPosition } from './merchant-secrets.reseal';
import { AccessSandboxMerchants1700000032100 } from './sandbox-merchants.migration';
import { AccessWebhookSecretRotation1700000004500 } from './webhook-secret-rotation.migration';

const keyV1 = randomBytes(32);
const keyV2 = randomBytes(32);
const onlyV1 = new SecretBox(SecretKeyring.single(keyV1, 1));
const rotated = new SecretBox(
  new SecretKeyring(
    2,
    new Map([
      [2, keyV2],
      [1, keyV1],
    ]),
  ),
);
const onlyV2 = new SecretBox(SecretKeyring.single(keyV2, 2));
const HOUR_MS = 3_600_000;

describe('merchant secrets across a master-key rotation, on real Postgres', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('rk', [
      AccessSchema1700000002000,
      AccessWebhookSecretRotation1700000004500,
      AccessSandboxMerchants1700000032100,
    ]);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  const versionsInTable = async () =>
    (await dataSource.query(`SELECT key_version, previous_key_version FROM merchant_secrets ORDER BY merchant_id, purpose`)) as Array<{
      key_version: number;
      previous_key_version: number | null;
    }>;

  /** Every merchant's API secret, current and previous webhook secret, as a fresh gateway with `box` reads them. */
  async function readAll(box: SecretBox, merchants: CreatedMerchant[]) {
    const credentials = new MerchantCredentialStore(dataSource, box, 0);
    const webhooks = new WebhookSecretStore(dataSource, box);
    return Promise.all(
      merchants.map(async ({ merchantId }) => ({
        merchantId,
        api: (await credentials.findCredentials(merchantId))?.apiSecret.toString('utf8'),
        webhook: (await webhooks.findWebhookProfile(merchantId))?.webhook_secrets.map(({ secret, role }) => `${role}:${secret}`),
      })),
    );
  }

  it('v1 secrets open under v2 with v1 retired; the re-seal moves them all to v2; then they open without v1', async () => {
    const v1Store = new MerchantCredentialStore(dataSource, onlyV1, 0);
    const merchants = await Promise.all(['A', 'B', 'C', 'D', 'E'].map((name) => v1Store.createMerchant(`shop ${name}`, null)));
    const [inOverlap, rotatedLater] = merchants as [CreatedMerchant, CreatedMerchant];
    // One merchant is inside a webhook-secret overlap: both its current and previous secrets are v1.
    await new WebhookSecretStore(dataSource, onlyV1).rotateWebhookSecret(inOverlap.merchantId, 24 * HOUR_MS);
    const asSealedUnderV1 = await readAll(onlyV1, merchants);
    expect(asSealedUnderV1[0]?.webhook).toHaveLength(2);

    // The deployment now runs v2 as current with v1 retired: everything still opens, new secrets are v2.
    expect(await readAll(rotated, merchants)).toEqual(asSealedUnderV1);
    const newcomer = await new MerchantCredentialStore(dataSource, rotated, 0).createMerchant('shop F', null);
    await new WebhookSecretStore(dataSource, rotated).rotateWebhookSecret(rotatedLater.merchantId, 24 * HOUR_MS);
    const everyone = [...merchants, newcomer];
    const beforeReseal = await readAll(rotated, everyone);
    const store = new MerchantSecretsResealStore(dataSource);

    // A dry run counts and writes nothing.
    const dryRun = await resealRetiredValues(store, rotated, { batchSize: 2, dryRun: true });
    // v1: 5 API + 5 webhook secrets + the previous ones of both rotated merchants - rotatedLater's current, now v2 = 11; v2: the newcomer's 2 + rotatedLater's current = 3.
    expect(dryRun).toMatchObject({ before: { 1: 11, 2: 3 }, resealed: 11, remaining: { 1: 11 }, dryRun: true });
    expect(nothingRemains(dryRun)).toBe(false);

    const report = await resealRetiredValues(store, rotated, { batchSize: 2, dryRun: false });
    expect(report).toMatchObject({ currentVersion: 2, before: { 1: 11, 2: 3 }, resealed: 11, changedMeanwhile: 0, remaining: {} });
    expect(nothingRemains(report)).toBe(true);
    for (const row of await versionsInTable()) {
      expect(row.key_version).toBe(2);
      expect([null, 2]).toContain(row.previous_key_version);
    }

    // Idempotent: nothing left to do.
    expect(await resealRetiredValues(store, rotated, { batchSize: 2, dryRun: false })).toMatchObject({ before: { 2: 14 }, resealed: 0, remaining: {} });
    // v1 removed: every secret opens, unchanged.
    expect(await readAll(onlyV2, everyone)).toEqual(beforeReseal);
  });

  it('a value under a version the keyring lacks fails clearly, and the re-seal then writes nothing', async () => {
    const merchant = await new MerchantCredentialStore(dataSource, onlyV1, 0).createMerchant('shop G', null);
    await expect(new MerchantCredentialStore(dataSource, onlyV2, 0).findCredentials(merchant.merchantId)).rejects.toThrow(
      /key version 1, which is not in the keyring \(has 2\)/,
    );
    const counts = await new MerchantSecretsResealStore(dataSource).countByVersion();
    await expect(resealRetiredValues(new MerchantSecretsResealStore(dataSource), onlyV2, { batchSize: 10, dryRun: false })).rejects.toThrow(
      /version 1.*2 under version 1; nothing was re-sealed/,
    );
    expect(await new MerchantSecretsResealStore(dataSource).countByVersion()).toEqual(counts);
    // A wrong key configured for v1 is refused as such, never read as some other secret.
    const wrongV1 = new SecretBox(
      new SecretKeyring(
        2,
        new Map([
          [2, keyV2],
          [1, randomBytes(32)],
        ]),
      ),
    );
    await expect(resealRetiredValues(new MerchantSecretsResealStore(dataSource), wrongV1, { batchSize: 10, dryRun: false })).rejects.toThrow(
      /does not open with key version 1/,
    );
    // With the right keyring the leftovers move too.
    expect(nothingRemains(await resealRetiredValues(new MerchantSecretsResealStore(dataSource), rotated, { batchSize: 10, dryRun: false }))).toBe(true);
  });

  it('a webhook secret the running gateway rotates between the read and the write is not overwritten', async () => {
    const merchant = await new MerchantCredentialStore(dataSource, onlyV1, 0).createMerchant('shop H', null);
    const gatewayStillOnV1 = new WebhookSecretStore(dataSource, onlyV1);
    const inner = new MerchantSecretsResealStore(dataSource);
    let rotatedSecret = '';
    // A replica not yet restarted rotates the webhook secret right after the re-seal read it.
    const racing: ResealableStore<MerchantSecretPosition> = {
      name: inner.name,
      countByVersion: () => inner.countByVersion(),
      page: (versions, after, limit) => inner.page(versions, after, limit),
      replace: async (replacements) => {
        if (!rotatedSecret) rotatedSecret = (await gatewayStillOnV1.rotateWebhookSecret(merchant.merchantId, 24 * HOUR_MS))?.webhookSecret ?? 'missing';
        return inner.replace(replacements);
      },
    };
    const first = await resealRetiredValues(racing, rotated, { batchSize: 10, dryRun: false });
    // Its API secret and the previous webhook secret the rotation left move now; the new current one (sealed v1 by that replica) waits for the next run.
    expect(first).toMatchObject({ resealed: 2, changedMeanwhile: 1, remaining: { 1: 1 } });
    expect(nothingRemains(first)).toBe(false);
    // The rotated secret is what the gateway serves, and the next run finishes the job.
    const served = async (box: SecretBox) => (await new WebhookSecretStore(dataSource, box).findWebhookProfile(merchant.merchantId))?.webhook_secrets;
    expect(await served(rotated)).toEqual([
      expect.objectContaining({ secret: rotatedSecret, role: 'current' }),
      expect.objectContaining({ secret: merchant.webhookSecret, role: 'previous' }),
    ]);
    expect(nothingRemains(await resealRetiredValues(inner, rotated, { batchSize: 10, dryRun: false }))).toBe(true);
    expect(await served(onlyV2)).toEqual([
      expect.objectContaining({ secret: rotatedSecret, role: 'current' }),
      expect.objectContaining({ secret: merchant.webhookSecret, role: 'previous' }),
    ]);
  });
});
