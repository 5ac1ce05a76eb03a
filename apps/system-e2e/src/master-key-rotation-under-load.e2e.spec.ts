/**
 * Goal: both master keys are rotated as docs/operations/master-key-rotation.md says while
 * merchants keep working, and no request notices: every signed request, payer-page link, payout
 * and account-number reveal made during the rotation gets the answer it would get on a quiet
 * day, every order made during it exists exactly once, nothing is left under the old key when
 * it is retired, and everything still opens afterwards.
 * Method: real gateway and payments, two replicas each, behind round-robin proxies that play
 * the Kubernetes Service (a replica leaves the list before it is stopped with SIGTERM and joins
 * again once healthy), so during each rolling update both configurations serve side by side.
 * A few workers keep a modest stream of traffic going through every step: pay-ins (their
 * payer-page links come from the payments key), payouts (the recipient account is sealed by
 * payments) that the agent takes and reveals, merchants created by the operator (their secrets
 * sealed by the gateway) and signing at once, and webhook-secret rotations (a write the re-seal
 * meets). The built re-seal command (dist/apps/ops/src/rekey.js) runs against both databases
 * while the traffic goes on.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomInt } from 'node:crypto';
import {
  BackofficeClient,
  builtEntryPoint,
  createOperator,
  eventually,
  registerAgent,
  SignedClient,
  SystemUnderTest,
  type InstanceName,
  type TestResponse,
} from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';
import { RoundRobinProxy } from './round-robin-proxy';

const WORKERS = 3;
/** Each worker's pause between rounds: a modest, steady rate (tens of requests a second in all). */
const PAUSE_BETWEEN_ROUNDS_MS = 50;
/** After each replica joins, both configurations serve side by side for this long before the next one rolls. */
const SIDE_BY_SIDE_MS = 1_000;
const PAYOUT_AMOUNT = 100;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Keyring = Record<string, string>;
interface Unexpected {
  phase: string;
  step: string;
  got: string;
}

describe('master-key rotation under load', () => {
  const gatewayProxy = new RoundRobinProxy();
  const paymentsProxy = new RoundRobinProxy();
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: BackofficeClient;
  let merchant: SignedClient;

  beforeAll(async () => {
    await Promise.all([gatewayProxy.start(), paymentsProxy.start()]);
    system = await SystemUnderTest.start({
      env: {
        // Every signed request opens the merchant's sealed secret, none is served from the cache.
        gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '30000', CREDENTIAL_CACHE_TTL_MS: '0', PAYMENTS_INTERNAL_URL: paymentsProxy.url },
        payments: { PUBLIC_BASE_URL: gatewayProxy.url },
      },
    });
    await system.startService('gateway-2');
    await system.startService('payments-2');
    for (const instance of ['gateway', 'gateway-2'] as const) gatewayProxy.add(system.urlOf(instance));
    for (const instance of ['payments', 'payments-2'] as const) paymentsProxy.add(system.urlOf(instance));

    operator = new BackofficeClient(gatewayProxy.url, (await createOperator(system)).token);
    agent = new BackofficeClient(
      gatewayProxy.url,
      (await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }])).client.token,
    );
    merchant = new SignedClient(gatewayProxy.url, await system.createMerchant('Busy shop'));
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
    // Funds for the payouts: a pay-in the payer reports paid and the agent confirms.
    const fundingId = newOrderId('load-funding');
    const funding = await merchant.post('/v2/payments/incoming', incomingPayment(fundingId, { amount: 500_000 }));
    expect(funding.status).toBe(201);
    expect((await fetch(`${funding.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await agent.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${fundingId}/confirm`, {})).status).toBe(200);
    await eventually(
      async () => (await merchant.get('/v2/merchant/balances')).body.settlement?.[0]?.available,
      (available) => available === 500_000,
      'the funding credited',
    );
  });
  afterAll(async () => {
    await system?.stop();
    await Promise.all([gatewayProxy.stop(), paymentsProxy.stop()]);
  });

  /** The re-seal as an operator runs it, in the background: the test's traffic goes on meanwhile. */
  function rekey(service: 'gateway' | 'payments', keyring: Keyring, ...flags: string[]): Promise<{ status: number | null; report: any; stderr: string }> {
    const databaseUrl =
      service === 'gateway' ? { GATEWAY_DATABASE_URL: system.databaseUrl('gateway') } : { PAYMENTS_DATABASE_URL: system.databaseUrl('payments') };
    const child = spawn(process.execPath, [builtEntryPoint('apps/ops/src/rekey.ts'), '--service', service, '--batch', '5', '--json', ...flags], {
      env: { PATH: process.env['PATH'] ?? '', ...databaseUrl, ...keyring },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    return new Promise((resolve) => child.on('exit', (status) => resolve({ status, report: stdout ? JSON.parse(stdout) : null, stderr })));
  }

  /** Re-seals until a run finds nothing left, as the guide says when a service rewrote a value meanwhile (exit 1). */
  async function resealToCompletion(service: 'gateway' | 'payments', keyring: Keyring) {
    for (let run = 1; ; run += 1) {
      const result = await rekey(service, keyring);
      if (result.status !== 1 || run === 5) return result;
    }
  }

  it('answers every request while keys are added, values re-sealed and the old keys retired', async () => {
    const merchantId = merchant.credentials.merchantId;
    const unexpected: Unexpected[] = [];
    const done = new Map<string, number>();
    const payIns: Array<{ orderId: string; redirectUrl: string; phase: string }> = [];
    const payouts: Array<{ orderId: string; accountNumber: string }> = [];
    const merchants: SignedClient[] = [merchant];
    let rotations = 0;
    let phase = 'before';
    let stopped = false;

    /** Records anything but the expected answer, with the phase it happened in; counts what went right. */
    const expectAnswer = (step: string, response: TestResponse, status: number, check: (body: any) => boolean = () => true): boolean => {
      if (response.status === status && check(response.body)) {
        done.set(`${phase}: ${step}`, (done.get(`${phase}: ${step}`) ?? 0) + 1);
        return true;
      }
      unexpected.push({ phase, step, got: `${response.status} ${response.text.slice(0, 300)}` });
      return false;
    };

    const payInRound = async () => {
      const orderId = newOrderId('load-in');
      const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 150 }));
      if (!expectAnswer('pay-in created', created, 201, (body) => typeof body?.redirect_url === 'string')) return;
      payIns.push({ orderId, redirectUrl: created.body.redirect_url, phase });
      expectAnswer(
        'pay-in read with its link',
        await merchant.get(`/v2/payments/status/${orderId}`),
        200,
        (body) => body?.redirect_url === created.body.redirect_url,
      );
      const page = await fetch(created.body.redirect_url);
      expectAnswer('payer page opened', { status: page.status, text: await page.text(), body: null, headers: page.headers }, 200);
    };

    const payoutRound = async () => {
      const orderId = newOrderId('load-out');
      const accountNumber = `40817810${String(randomInt(1e6)).padStart(6, '0')}${String(randomInt(1e6)).padStart(6, '0')}`;
      const created = await merchant.post('/v2/payments/outgoing', {
        ...incomingPayment(orderId, { amount: PAYOUT_AMOUNT }),
        method: 'bank_card',
        account_number: accountNumber,
      });
      if (!expectAnswer('payout created', created, 201)) return;
      payouts.push({ orderId, accountNumber });
      const path = `/backoffice/v1/agent/orders/${merchantId}/${orderId}`;
      if (!expectAnswer('payout taken', await agent.request('POST', `${path}/take`, {}), 200)) return;
      expectAnswer('account number revealed', await agent.request('POST', `${path}/account-number`, {}), 200, (body) => body?.account_number === accountNumber);
    };

    const merchantRound = async () => {
      const created = await operator.request('POST', '/backoffice/v1/merchants', { name: `Load shop ${merchants.length}` });
      if (expectAnswer('merchant created', created, 201)) {
        const newcomer = new SignedClient(gatewayProxy.url, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret });
        merchants.push(newcomer);
        expectAnswer('new merchant signs', await newcomer.get('/v2/merchant'), 200);
      }
      const earlier = merchants[randomInt(merchants.length)];
      expectAnswer('earlier merchant signs', await earlier.get('/v2/merchant/balances'), 200);
      // Each rotation signed anew (its own overlap, so its own signature: an identical one in the
      // same second would be a replay), and rotations have a bucket of their own: once a merchant
      // used it up, its rotation is 429 and another merchant's still seals a new secret.
      rotations += 1;
      const rotated = await earlier.post('/v2/merchant/webhook-secret/rotate', { overlap_hours: 1 + (rotations % 168) });
      if (rotated.status !== 429) expectAnswer('webhook secret rotated', rotated, 201);
    };

    const rounds = [payInRound, payoutRound, merchantRound];
    const worker = async (offset: number) => {
      for (let round = offset; !stopped; round += 1) {
        const step = rounds[round % rounds.length];
        try {
          await step();
        } catch (error) {
          unexpected.push({ phase, step: step.name, got: error instanceof Error ? error.message : String(error) });
        }
        await sleep(PAUSE_BETWEEN_ROUNDS_MS);
      }
    };

    /** A rolling update of both services: each replica leaves its proxy, stops, starts with the new keyring and joins again. */
    const rollOut = async (name: string, gatewayKeyring: Keyring, paymentsKeyring: Keyring) => {
      phase = name;
      const roll = async (proxy: RoundRobinProxy, instances: InstanceName[], keyring: Keyring) => {
        for (const instance of instances) {
          await proxy.remove(system.urlOf(instance));
          await system.terminate(instance);
          await system.startService(instance, keyring);
          proxy.add(system.urlOf(instance));
          await sleep(SIDE_BY_SIDE_MS);
        }
      };
      await Promise.all([roll(gatewayProxy, ['gateway', 'gateway-2'], gatewayKeyring), roll(paymentsProxy, ['payments', 'payments-2'], paymentsKeyring)]);
    };

    const oldKeys = { gateway: `1:${system.masterKey}`, payments: `1:${system.paymentsMasterKey}` };
    const newKeys = { gateway: randomBytes(32).toString('base64'), payments: randomBytes(32).toString('base64') };
    // The new key known to every replica (read, never used to seal) before any replica seals with it.
    const readable = {
      gateway: { MERCHANT_SECRETS_NEXT_KEY: `2:${newKeys.gateway}` },
      payments: { PAYMENTS_SECRETS_NEXT_KEY: `2:${newKeys.payments}` },
    };
    const rotating = {
      gateway: { MERCHANT_SECRETS_MASTER_KEY: newKeys.gateway, MERCHANT_SECRETS_MASTER_KEY_VERSION: '2', MERCHANT_SECRETS_RETIRED_KEYS: oldKeys.gateway },
      payments: { PAYMENTS_SECRETS_MASTER_KEY: newKeys.payments, PAYMENTS_SECRETS_MASTER_KEY_VERSION: '2', PAYMENTS_SECRETS_RETIRED_KEYS: oldKeys.payments },
    };
    const rotated = {
      gateway: { MERCHANT_SECRETS_MASTER_KEY: newKeys.gateway, MERCHANT_SECRETS_MASTER_KEY_VERSION: '2' },
      payments: { PAYMENTS_SECRETS_MASTER_KEY: newKeys.payments, PAYMENTS_SECRETS_MASTER_KEY_VERSION: '2' },
    };

    const workers = Array.from({ length: WORKERS }, (_, offset) => worker(offset));
    await sleep(SIDE_BY_SIDE_MS);
    // Step 2: the new key readable everywhere; step 3: current, the old one retired. Each rolled out replica by replica.
    await rollOut('new key readable', readable.gateway, readable.payments);
    await rollOut('new key current', rotating.gateway, rotating.payments);
    // Step 4: the re-seal, with the traffic going on.
    phase = 're-seal';
    const [gatewayResealed, paymentsResealed] = await Promise.all([
      resealToCompletion('gateway', rotating.gateway),
      resealToCompletion('payments', rotating.payments),
      sleep(SIDE_BY_SIDE_MS),
    ]);
    expect(gatewayResealed).toMatchObject({ status: 0, report: { currentVersion: 2, remaining: {} } });
    expect(paymentsResealed).toMatchObject({ status: 0, report: { currentVersion: 2, remaining: {} } });
    // Step 5: nothing is left under the old key before it goes, by the command and by the tables themselves.
    expect(await rekey('gateway', rotated.gateway, '--dry-run')).toMatchObject({ status: 0, report: { resealed: 0, remaining: {} } });
    expect(await rekey('payments', rotated.payments, '--dry-run')).toMatchObject({ status: 0, report: { resealed: 0, remaining: {} } });
    const [gatewayOld] = await system.query<{ count: string }>(
      'gateway',
      `SELECT count(*) FROM merchant_secrets WHERE key_version <> 2 OR (previous_ciphertext IS NOT NULL AND COALESCE(previous_key_version, 1) <> 2)`,
    );
    const [paymentsOld] = await system.query<{ count: string }>('payments', 'SELECT count(*) FROM payout_recipient_accounts WHERE key_version <> 2');
    expect({ gateway: Number(gatewayOld.count), payments: Number(paymentsOld.count) }).toEqual({ gateway: 0, payments: 0 });
    // Step 6: the old key removed.
    await rollOut('old key removed', rotated.gateway, rotated.payments);
    phase = 'after';
    await sleep(SIDE_BY_SIDE_MS);
    stopped = true;
    await Promise.all(workers);

    // Together, so that an unexpected answer shows whether a replica or the proxy gave it.
    expect({ unexpected, proxyFailures: [...gatewayProxy.failures, ...paymentsProxy.failures] }).toEqual({ unexpected: [], proxyFailures: [] });
    // The traffic really ran through every phase.
    const idle = ['new key readable', 'new key current', 're-seal', 'old key removed'].flatMap((phaseName) =>
      ['pay-in created', 'account number revealed', 'new merchant signs'].map((step) => `${phaseName}: ${step}`).filter((key) => !done.has(key)),
    );
    expect(idle).toEqual([]);

    // Every order made during the rotation exists exactly once, and no other.
    const orderIds = [...payIns, ...payouts].map(({ orderId }) => orderId);
    const rows = await system.query<{ order_id: string }>(
      'payments',
      `SELECT order_id FROM payment_orders WHERE merchant_id = $1 AND order_id LIKE 'load-%' AND order_id NOT LIKE 'load-funding%'`,
      [merchantId],
    );
    expect(rows.map((row) => row.order_id).sort()).toEqual([...orderIds].sort());

    // After retirement everything still opens: every merchant signs, every account number and link.
    for (const client of merchants)
      expect({ merchant: client.credentials.merchantId, status: (await client.get('/v2/merchant/balances')).status }).toEqual({
        merchant: client.credentials.merchantId,
        status: 200,
      });
    for (const { orderId, accountNumber } of payouts) {
      expect((await agent.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${orderId}/account-number`, {})).body.account_number).toBe(accountNumber);
    }
    // A link handed out under the old key keeps opening its page (only its hash is stored); reads
    // show the same link for every pay-in created once no replica sealed with the old key.
    for (const { orderId, redirectUrl, phase: createdIn } of payIns) {
      expect({ orderId, page: (await fetch(redirectUrl)).status }).toEqual({ orderId, page: 200 });
      if (['re-seal', 'old key removed', 'after'].includes(createdIn))
        expect((await merchant.get(`/v2/payments/status/${orderId}`)).body.redirect_url).toBe(redirectUrl);
    }
  }, 300_000);
});
