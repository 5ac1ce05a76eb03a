/**
 * Goal: the services run as compose and Kubernetes run them, each as a database role that can
 * read and write its tables but owns none of them (one role per service, a separate
 * migration role: docs/operations/compose.md), and money still moves: a pay-in goes from the merchant through payments to
 * the agent's confirmation and the ledger's credit. Method: `init --steps databases,migrations`,
 * the built ops command, makes every service's two roles and database on the test server, as
 * compose's init does; the whole system then starts with each service's URL naming its own
 * restricted role. The denials themselves are tested in apps/ops/src/provision.int.spec.ts.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import {
  builtEntryPoint,
  createOperator,
  eventually,
  registerAgent,
  SystemUnderTest,
  workspaceRoot,
  type RegisteredAgent,
  type ServiceName,
  type SignedClient,
} from '@mp/shared-testing';
import { Client } from 'pg';
import { incomingPayment, newOrderId } from './fixtures';

const SERVICES: ServiceName[] = ['ledger', 'disputes', 'payments', 'withdrawals', 'gateway', 'callbacks'];
const adminUrl = process.env.TEST_PG_ADMIN_URL as string;
const prefix = `roles_${randomBytes(3).toString('hex')}`;
const databaseOf = (service: ServiceName) => `${prefix}_${service}`;
const roleUrl = (role: string, service: ServiceName) => {
  const url = new URL(adminUrl);
  url.username = role;
  url.password = `pw-${role}`;
  url.pathname = `/${databaseOf(service)}`;
  return url.toString();
};
const serviceUrl = (service: ServiceName) => roleUrl(`${prefix}_${service}`, service);
const migrationUrl = (service: ServiceName) => roleUrl(`${prefix}_${service}_migrator`, service);

async function asAdmin<T>(use: (admin: Client) => Promise<T>): Promise<T> {
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    return await use(admin);
  } finally {
    await admin.end();
  }
}

describe('services running as roles that cannot change their schema', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let agent: RegisteredAgent;

  beforeAll(async () => {
    const urls = SERVICES.flatMap((service) => [
      [`${service.toUpperCase()}_DATABASE_URL`, serviceUrl(service)],
      [`${service.toUpperCase()}_MIGRATION_DATABASE_URL`, migrationUrl(service)],
    ]);
    const init = await promisify(execFile)(process.execPath, [builtEntryPoint('apps/ops/src/init.ts'), '--steps', 'databases,migrations'], {
      cwd: workspaceRoot,
      env: { PATH: process.env.PATH ?? '', POSTGRES_ADMIN_URL: adminUrl, ...Object.fromEntries(urls) },
    });
    expect(init.stdout).toMatch(/\[init\] migrations: applied ledger \d+, disputes \d+, payments \d+, withdrawals \d+, gateway \d+, callbacks \d+/);
    system = await SystemUnderTest.start({
      env: Object.fromEntries(SERVICES.map((service) => [service, { [`${service.toUpperCase()}_DATABASE_URL`]: serviceUrl(service) }])),
    });
    merchant = await system.createClient('Restricted roles shop');
    const operator = await createOperator(system);
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  });

  afterAll(async () => {
    await system?.stop();
    await asAdmin(async (admin) => {
      for (const service of SERVICES) {
        await admin.query(`DROP DATABASE IF EXISTS "${databaseOf(service)}" WITH (FORCE)`);
        await admin.query(`DROP ROLE IF EXISTS "${prefix}_${service}_migrator"`);
        await admin.query(`DROP ROLE IF EXISTS "${prefix}_${service}"`);
      }
    });
  });

  it("owns none of its tables: every service's tables belong to its migration role", async () => {
    const owners = await Promise.all(
      SERVICES.map(async (service) => {
        const client = new Client({ connectionString: serviceUrl(service) });
        await client.connect();
        try {
          const rows = (await client.query<{ owner: string }>("SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'")).rows;
          return { service, owners: rows.map(({ owner }) => owner) };
        } finally {
          await client.end();
        }
      }),
    );
    expect(owners).toEqual(SERVICES.map((service) => ({ service, owners: [`${prefix}_${service}_migrator`] })));
  });

  it('moves money: a pay-in is created, paid, confirmed by the agent and credited by the ledger', async () => {
    const orderId = newOrderId('roles');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId));
    expect(created.status).toBe(201);
    const token = String(created.body.redirect_url).split('/pay/')[1];
    expect((await fetch(`${system.gatewayUrl}/pay/${token}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${system.gatewayUrl}/pay/${token}/paid`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const confirmed = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {});
    expect(confirmed.status).toBe(200);
    expect((await merchant.get(`/v2/payments/status/${orderId}`)).body).toMatchObject({ status: 'SUCCEEDED' });

    // 1500.50 RUB less the 2.5 % fee (37.51): the ledger consumed the order's events and wrote its postings as its own role.
    const availableRub = async (): Promise<number | undefined> =>
      (await merchant.get('/v2/merchant/balances')).body.settlement.find((entry: { currency: string }) => entry.currency === 'RUB')?.available;
    expect(await eventually(availableRub, (available) => available === 1462.99, 'the RUB balance credited', 20_000)).toBe(1462.99);
  });
});
