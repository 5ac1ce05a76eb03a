/**
 * Goal: the payments master key can be rotated on a running system (docs/operations/master-key-rotation.md), on a real
 * PostgreSQL: recipient accounts sealed with key v1 still reveal once v2 is current and v1
 * retired; the re-seal moves them all to v2 in batches, idempotently; then they reveal with v1
 * removed, and an account under a version the keyring lacks fails clearly. Method: payments'
 * migrations on a private database, the vault the service uses, payouts as the projection
 * stores them.
 */
import { randomBytes } from 'node:crypto';
import { migratedPrivateDatabase } from '@mp/shared-data-access-postgres';
import { nothingRemains, resealRetiredValues, SecretBox, SecretKeyring } from '@mp/shared-util-secret-box';
import type { DataSource } from 'typeorm';
import type { PaymentsSettings } from '../payments-settings';
import { PAYMENTS_MIGRATIONS } from '../payments.module';
import { RECIPIENT_ACCOUNT_KEY_PURPOSE, RecipientAccountVault } from './recipient-account.vault';
import { RecipientAccountsResealStore } from './recipient-accounts.reseal';

const keyV1 = randomBytes(32);
const keyV2 = randomBytes(32);
const onlyV1 = SecretKeyring.single(keyV1, 1);
const rotated = new SecretKeyring(
  2,
  new Map([
    [2, keyV2],
    [1, keyV1],
  ]),
);
const onlyV2 = SecretKeyring.single(keyV2, 2);
const vaultWith = (secretsKeyring: SecretKeyring) => new RecipientAccountVault({ secretsKeyring } as PaymentsSettings);
const resealBox = (keyring: SecretKeyring) => new SecretBox(keyring.derive(RECIPIENT_ACCOUNT_KEY_PURPOSE));
const AGENT = 'agt_rekey';

describe('payout recipient accounts across a master-key rotation, on real Postgres', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await migratedPrivateDatabase('rkp', PAYMENTS_MIGRATIONS);
  });

  afterAll(async () => {
    await dataSource?.destroy();
  });

  /** Stores the account as the gateway's call does, and a payout assigned to the agent that uses it. */
  async function payoutTo(keyring: SecretKeyring, orderId: string, accountNumber: string): Promise<{ orderId: string; accountNumber: string }> {
    const account = await vaultWith(keyring).store(dataSource.manager, 'mch_rekey', accountNumber);
    await dataSource.query(
      `INSERT INTO payment_orders (merchant_id, order_id, direction, status, amount_minor, fee_minor, currency, country, method, callback_url,
                                   recipient_account_ref, account_number_last4, agent_id, expires_at, created_at, updated_at, stream_version)
       VALUES ('mch_rekey', $1, 'outgoing', 'PENDING', 1000, 0, 'RUB', 'RU', 'card', 'https://shop.example/cb', $2, $3, $4, now() + interval '1 hour', now(), now(), 1)`,
      [orderId, account.reference, account.last4, AGENT],
    );
    return { orderId, accountNumber };
  }

  const revealAll = (keyring: SecretKeyring, payouts: Array<{ orderId: string }>) =>
    Promise.all(payouts.map(async ({ orderId }) => (await vaultWith(keyring).reveal(dataSource.manager, AGENT, 'mch_rekey', orderId)).account_number));

  it('v1 accounts reveal under v2 with v1 retired; the re-seal moves them all to v2; then they reveal without v1', async () => {
    const underV1 = await Promise.all(Array.from({ length: 7 }, (_, index) => payoutTo(onlyV1, `P-${index}`, `4081781009991000${1000 + index}`)));
    const underV2 = [await payoutTo(rotated, 'P-new', '40817810099910009999')];
    const everyone = [...underV1, ...underV2];
    const accountNumbers = everyone.map(({ accountNumber }) => accountNumber);
    expect(await revealAll(rotated, everyone)).toEqual(accountNumbers);

    const store = new RecipientAccountsResealStore(dataSource);
    expect(await resealRetiredValues(store, resealBox(rotated), { batchSize: 3, dryRun: true })).toMatchObject({
      before: { 1: 7, 2: 1 },
      resealed: 7,
      remaining: { 1: 7 },
    });
    const report = await resealRetiredValues(store, resealBox(rotated), { batchSize: 3, dryRun: false });
    expect(report).toMatchObject({ currentVersion: 2, before: { 1: 7, 2: 1 }, resealed: 7, changedMeanwhile: 0, remaining: {} });
    expect(nothingRemains(report)).toBe(true);
    expect(await dataSource.query(`SELECT DISTINCT key_version FROM payout_recipient_accounts`)).toEqual([{ key_version: 2 }]);
    expect(await resealRetiredValues(store, resealBox(rotated), { batchSize: 3, dryRun: false })).toMatchObject({
      before: { 2: 8 },
      resealed: 0,
      remaining: {},
    });

    expect(await revealAll(onlyV2, everyone)).toEqual(accountNumbers);
  });

  it('an account under a version the keyring lacks fails clearly, and the re-seal then writes nothing', async () => {
    const payout = await payoutTo(onlyV1, 'P-late', '40817810099910005555');
    await expect(revealAll(onlyV2, [payout])).rejects.toThrow(/key version 1, which is not in the keyring \(has 2\)/);
    await expect(resealRetiredValues(new RecipientAccountsResealStore(dataSource), resealBox(onlyV2), { batchSize: 10, dryRun: false })).rejects.toThrow(
      /1 under version 1; nothing was re-sealed/,
    );
    expect(await new RecipientAccountsResealStore(dataSource).countByVersion()).toEqual(
      new Map([
        [1, 1],
        [2, 8],
      ]),
    );
  });
});
