/**
 * Goal: an operator rotates both master keys of a running system as
 * docs/operations/master-key-rotation.md says, and nothing stored becomes unreadable: merchant
 * secrets (signed requests), payout recipient accounts (an agent's reveal) and payer-page links
 * all keep working with the new key current and the old one retired, the re-seal command moves
 * everything to the new key, and they keep working once the old key is removed.
 * Method: real gateway, payments, ledger and Kafka; the services restarted with each
 * configuration as a rollout would; the built ops command (dist/apps/ops/src/rekey.js) run
 * against the services' databases with the same variables.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  BackofficeClient,
  builtEntryPoint,
  createOperator,
  eventually,
  registerAgent,
  SignedClient,
  SystemUnderTest,
  type RegisteredAgent,
} from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

const ACCOUNT_NUMBER = '40817810099910004312';

describe('master-key rotation on a running system', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let merchant: SignedClient;

  beforeAll(async () => {
    system = await SystemUnderTest.start({ env: { gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '30000', CREDENTIAL_CACHE_TTL_MS: '0' } } });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    merchant = await system.createClient('Rotation shop');
    const common = {
      country: 'RU',
      currency: 'RUB',
      fee_rate_basis_points: 0,
      fee_fixed_minor: '0',
      min_amount_minor: '100',
      max_amount_minor: '100000000',
      expiry_minutes: 30,
    };
    const methods = await operator.request('PUT', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/methods`, {
      entries: [
        { method: 'bank_card', direction: 'incoming', ...common },
        { method: 'bank_card', direction: 'outgoing', ...common },
      ],
    });
    expect(methods.status).toBe(200);
  });
  afterAll(async () => system?.stop());

  /** The re-seal as an operator runs it; its --json report and exit code. */
  function rekey(service: 'gateway' | 'payments', keyring: Record<string, string>, ...flags: string[]) {
    const databaseUrl =
      service === 'gateway' ? { GATEWAY_DATABASE_URL: system.databaseUrl('gateway') } : { PAYMENTS_DATABASE_URL: system.databaseUrl('payments') };
    const result = spawnSync(process.execPath, [builtEntryPoint('apps/ops/src/rekey.ts'), '--service', service, '--batch', '1', '--json', ...flags], {
      env: { PATH: process.env['PATH'] ?? '', ...databaseUrl, ...keyring },
      encoding: 'utf8',
    });
    return { status: result.status, report: result.stdout ? JSON.parse(result.stdout) : null, stderr: result.stderr };
  }

  it('keeps secrets, accounts and payer-page links readable through new key, re-seal and removal of the old key', async () => {
    const merchantId = merchant.credentials.merchantId;
    // Before: a pay-in with its payer-page link, a payout taken by the agent.
    const payInId = newOrderId('rot-payin');
    const payIn = await merchant.post('/v2/payments/incoming', incomingPayment(payInId, { amount: 5000 }));
    expect(payIn.status).toBe(201);
    // Funds for the payout: the payer reports the pay-in paid, the agent confirms, the ledger credits it.
    expect((await fetch(`${payIn.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${payInId}/confirm`, {})).status).toBe(200);
    await eventually(
      async () => (await merchant.get('/v2/merchant/balances')).body.settlement?.[0]?.available,
      (available) => available === 5000,
      'the pay-in credited',
    );
    const payoutId = newOrderId('rot-payout');
    expect(
      (await merchant.post('/v2/payments/outgoing', { ...incomingPayment(payoutId, { amount: 1000 }), method: 'bank_card', account_number: ACCOUNT_NUMBER }))
        .status,
    ).toBe(201);
    const payoutPath = `/backoffice/v1/agent/orders/${merchantId}/${payoutId}`;
    expect((await agent.client.request('POST', `${payoutPath}/take`, {})).status).toBe(200);
    const reveal = async () => (await agent.client.request('POST', `${payoutPath}/account-number`, {})).body.account_number;

    // Step 2: the new keys current (version 2), the old ones retired, services restarted.
    const merchantKeys = { MERCHANT_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'), MERCHANT_SECRETS_MASTER_KEY_VERSION: '2' };
    const paymentsKeys = { PAYMENTS_SECRETS_MASTER_KEY: randomBytes(32).toString('base64'), PAYMENTS_SECRETS_MASTER_KEY_VERSION: '2' };
    const merchantRotating = { ...merchantKeys, MERCHANT_SECRETS_RETIRED_KEYS: `1:${system.masterKey}` };
    const paymentsRotating = { ...paymentsKeys, PAYMENTS_SECRETS_RETIRED_KEYS: `1:${system.paymentsMasterKey}` };
    await system.restart('gateway', merchantRotating);
    await system.restart('payments', paymentsRotating);

    expect((await merchant.get(`/v2/payments/status/${payInId}`)).body.redirect_url).toBe(payIn.body.redirect_url);
    expect((await fetch(payIn.body.redirect_url)).status).toBe(200);
    expect(await reveal()).toBe(ACCOUNT_NUMBER);
    const laterPayInId = newOrderId('rot-later');
    const laterPayIn = await merchant.post('/v2/payments/incoming', incomingPayment(laterPayInId, { amount: 700 }));
    expect(laterPayIn.status).toBe(201);
    expect(laterPayIn.body.redirect_url).not.toBe(payIn.body.redirect_url);

    // Step 4: re-seal; steps 5 and 6: verify without the old keys, then remove them.
    const gatewayResealed = rekey('gateway', merchantRotating);
    expect(gatewayResealed).toMatchObject({ status: 0, report: { currentVersion: 2, remaining: {} } });
    expect(gatewayResealed.report.before['1']).toBeGreaterThanOrEqual(2);
    expect(gatewayResealed.report.resealed).toBe(gatewayResealed.report.before['1']);
    expect(rekey('payments', paymentsRotating)).toMatchObject({ status: 0, report: { before: { 1: 1 }, resealed: 1, remaining: {} } });
    expect(rekey('gateway', merchantKeys, '--dry-run')).toMatchObject({ status: 0, report: { resealed: 0, remaining: {} } });
    expect(rekey('payments', paymentsKeys, '--dry-run')).toMatchObject({ status: 0, report: { before: { 2: 1 }, resealed: 0, remaining: {} } });
    await system.restart('gateway', merchantKeys);
    await system.restart('payments', paymentsKeys);

    expect((await merchant.get('/v2/merchant/balances')).status).toBe(200);
    expect(await reveal()).toBe(ACCOUNT_NUMBER);
    expect((await merchant.get(`/v2/payments/status/${laterPayInId}`)).body.redirect_url).toBe(laterPayIn.body.redirect_url);
    expect((await fetch(laterPayIn.body.redirect_url)).status).toBe(200);
    // A link handed out before the rotation still opens its page: only its hash is stored.
    expect((await fetch(payIn.body.redirect_url)).status).toBe(200);
  });
});
