/**
 * Goal: every service says whether it is alive and whether it is ready (and why not), and a
 * replica taking over from one that was stopped (SIGTERM) loses nothing and duplicates nothing.
 * Method: the real services, two replicas each of payments and ledger under a steady stream of
 * pay-ins (created, shown to the payer, confirmed by the agent); one of each is stopped; every
 * order must exist once, be credited once, and the ledger audit must balance. The takeover is
 * printed as the slowest create around the stop (a create waits while its command partition has
 * no consumer); the precise figures come from bench/takeover.mjs. A replica killed (SIGKILL)
 * under load is the chaos run's proof, once per test run (docs/testing.md).
 */
import { spawnSync } from 'node:child_process';
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

const INSTANCES = ['gateway', 'payments', 'ledger', 'disputes', 'withdrawals', 'callbacks'] as const;

function feeFreeMethods() {
  const common = {
    country: 'RU',
    currency: 'RUB',
    fee_rate_basis_points: 0,
    fee_fixed_minor: '0',
    min_amount_minor: '100',
    max_amount_minor: '100000000',
    expiry_minutes: 30,
  };
  return { entries: [{ method: 'bank_card', direction: 'incoming', ...common }] };
}

/** Paces the load and holds it running for a fixed time: windows, not conditions. */
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface PayIn {
  orderId: string;
  amount: number;
  startedAt: number;
  createMs: number;
}

describe('health, graceful shutdown and takeover', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let agent: RegisteredAgent;
  let merchant: SignedClient;
  /** Every pay-in of this file: the merchant's balance is their sum. */
  const allPayIns: PayIn[] = [];

  beforeAll(async () => {
    // Long enough that a create waits out a takeover rather than timing out.
    system = await SystemUnderTest.start({ env: { gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '40000' } } });
    operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    merchant = await system.createClient('Takeover shop');
    expect((await operator.request('PUT', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/methods`, feeFreeMethods())).status).toBe(200);
  });
  afterAll(async () => system?.stop());

  it.each(INSTANCES)('%s answers /health/live and /health/ready (database and Kafka up) and /health', async (instance) => {
    const live = await fetch(`${system.urlOf(instance)}/health/live`);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ status: 'ok' });
    const ready = await fetch(`${system.urlOf(instance)}/health/ready`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({ status: 'ok', info: { database: { status: 'up' }, kafka: { status: 'up' }, shutdown: { status: 'up' } } });
    expect((await fetch(`${system.urlOf(instance)}/health`)).status).toBe(200);
  });

  /** One pay-in, start to finish: created, details shown to the payer (assigns the agent), confirmed. */
  async function payIn(amount: number): Promise<PayIn> {
    const orderId = newOrderId('takeover');
    const startedAt = Date.now();
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount }));
    const createMs = Date.now() - startedAt;
    expect(created.status).toBe(201);
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const confirmed = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {});
    expect(confirmed.status).toBe(200);
    return { orderId, amount, startedAt, createMs };
  }

  /** Starts a pay-in every `intervalMs` until stopped; resolves with all of them once they are done. */
  function steadyLoad(intervalMs: number): { stop: () => Promise<PayIn[]> } {
    const running: Array<Promise<PayIn>> = [];
    let stopped = false;
    const loop = (async () => {
      for (let index = 0; !stopped; index += 1) {
        running.push(payIn(100 + (index % 50)));
        await sleep(intervalMs);
      }
    })();
    return {
      stop: async () => {
        stopped = true;
        await loop;
        return Promise.all(running);
      },
    };
  }

  /** Second replicas of payments and ledger, then a pay-in every 150 ms, running for 3 s already. */
  async function secondReplicasUnderLoad(): Promise<{ stop: () => Promise<PayIn[]> }> {
    await system.startService('payments-2');
    await system.startService('ledger-2');
    const load = steadyLoad(150);
    await sleep(3_000);
    return load;
  }

  /** The slowest create among those started within `windowMs` after `at`: how long its command waited for a consumer. */
  function slowestCreateAfter(payIns: PayIn[], at: number, windowMs: number): number {
    return Math.max(0, ...payIns.filter((payIn) => payIn.startedAt >= at - 500 && payIn.startedAt <= at + windowMs).map((payIn) => payIn.createMs));
  }

  async function expectEveryOrderOnceAndCreditedOnce(payIns: PayIn[]): Promise<void> {
    const merchantId = merchant.credentials.merchantId;
    const created = await system.query<{ stream_id: string; created: string }>(
      'payments',
      `SELECT stream_id, count(*) FILTER (WHERE event_type = 'IncomingPaymentCreated') AS created FROM event_store WHERE stream_id = ANY($1) GROUP BY stream_id`,
      [payIns.map((payIn) => `payment-order:${merchantId}:${payIn.orderId}`)],
    );
    expect(created).toHaveLength(payIns.length);
    expect(created.filter((row) => Number(row.created) !== 1)).toEqual([]);
    allPayIns.push(...payIns);
    const expectedMinor = allPayIns.reduce((sum, payIn) => sum + payIn.amount * 100, 0);
    const availableMinor = await eventually(
      async () =>
        Math.round(
          ((await merchant.get('/v2/merchant/balances')).body.settlement?.find((entry: { currency: string }) => entry.currency === 'RUB')?.available ?? 0) *
            100,
        ),
      (available) => available >= expectedMinor,
      'the pay-ins credited',
      60_000,
    );
    // Equal, not just reached: a pay-in credited twice would show as more.
    expect(availableMinor).toBe(expectedMinor);
    const audit = spawnSync(process.execPath, [builtEntryPoint('apps/ledger/src/audit.ts')], {
      env: { ...process.env, LEDGER_DATABASE_URL: system.databaseUrl('ledger') },
      encoding: 'utf8',
    });
    expect({ status: audit.status, output: audit.stdout + audit.stderr }).toMatchObject({ status: 0 });
  }

  it('stops a replica cleanly on SIGTERM (exit 0) and loses and duplicates nothing under load', async () => {
    const load = await secondReplicasUnderLoad();
    const stoppedAt = Date.now();
    const exitCodes = await Promise.all([system.terminate('payments-2'), system.terminate('ledger-2')]);
    const stopMs = Date.now() - stoppedAt;
    await sleep(6_000);
    const payIns = await load.stop();
    const takeoverMs = slowestCreateAfter(payIns, stoppedAt, stopMs + 4_000);
    console.log(`[takeover] after SIGTERM: replicas exited in ${stopMs} ms, slowest create ${takeoverMs} ms (${payIns.length} pay-ins)`);
    expect(exitCodes).toEqual([0, 0]);
    expect(system.outputOf('payments-2').join('\n')).toContain('stopped cleanly');
    await expectEveryOrderOnceAndCreditedOnce(payIns);
    // The bound is 2 s; the margin absorbs a loaded test machine.
    expect(takeoverMs).toBeLessThan(8_000);
  });
});
