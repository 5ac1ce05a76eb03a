/**
 * proxyFaults: how a run's services are routed through the proxies (the environment they get),
 * and that each fault breaks and heals the real path: PostgreSQL (the shared test server) and
 * an HTTP server standing in for the ledger's internal listener.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from 'pg';
import type { InstanceName } from '@mp/shared-testing';
import { ProxiedDependencies, proxyFaults, type ProxyChaosFault, type ProxyFaultContext } from './proxy-faults';

jest.setTimeout(60_000);

const adminUrl = () => new URL(String(process.env['TEST_PG_ADMIN_URL']));

function contextFor(ledgerPort: number, lines: string[]): ProxyFaultContext {
  const admin = adminUrl();
  return {
    system: {
      databaseUrl: (service) => Object.assign(new URL(admin), { pathname: `/run_${service}` }).toString(),
      ports: new Map<InstanceName, number>([['ledger', ledgerPort]]),
    },
    infra: { kafka: { proxiedListener: { port: 9 } }, postgres: { host: admin.hostname, port: Number(admin.port) } },
    databases: { payments: 'run_payments', ledger: 'run_ledger' },
    env: { payments: { LOG_LEVEL: 'warn' } },
    log: (line) => lines.push(line),
  };
}

const byName = (faults: ProxyChaosFault[], name: RegExp): ProxyChaosFault => {
  const fault = faults.find((candidate) => name.test(candidate.name));
  if (!fault) throw new Error(`no fault named ${name}`);
  return fault;
};

describe('proxyFaults', () => {
  let dependencies: ProxiedDependencies;
  let ledger: Server;
  let context: ProxyFaultContext;
  const lines: string[] = [];

  beforeAll(async () => {
    ledger = createServer((_request, response) => response.end('ledger'));
    await new Promise<void>((resolve) => ledger.listen(0, '127.0.0.1', resolve));
    dependencies = await ProxiedDependencies.start();
    context = contextFor((ledger.address() as AddressInfo).port, lines);
    for (const fault of proxyFaults(dependencies, 'full')) await fault.prepare(context);
  });

  afterAll(async () => {
    await Promise.all(proxyFaults(dependencies, 'quick').map((fault) => fault.dispose(context)));
    ledger.closeAllConnections();
    await new Promise((resolve) => ledger.close(resolve));
  });

  it('routes every service through the proxies, keeping the environment it had', () => {
    const databaseUrl = (service: string) => Object.assign(adminUrl(), { host: dependencies.postgres.address, pathname: `/run_${service}` }).toString();
    expect(context.env).toEqual({
      payments: {
        LOG_LEVEL: 'warn',
        KAFKA_BROKERS: dependencies.kafka.address,
        PAYMENTS_DATABASE_URL: databaseUrl('payments'),
        LEDGER_INTERNAL_URL: `http://${dependencies.internalHttp.address}`,
      },
      ledger: { KAFKA_BROKERS: dependencies.kafka.address, LEDGER_DATABASE_URL: databaseUrl('ledger') },
    });
    expect(dependencies.kafkaProxiedListener).toEqual({ advertisedPort: dependencies.kafka.port });
  });

  it('names its faults by kind: the quick run only drops, the full run holds latency and refusals too', () => {
    expect(proxyFaults(dependencies, 'quick').map(({ kind, name, recoveryFrom }) => ({ kind, name, recoveryFrom }))).toEqual([
      { kind: 'proxy-drop', name: 'postgres connections dropped (proxy)', recoveryFrom: 'inject' },
      { kind: 'proxy-drop', name: 'kafka connections dropped (proxy)', recoveryFrom: 'inject' },
    ]);
    expect(proxyFaults(dependencies, 'full').map(({ kind, holdMs, recoveryFrom }) => [kind, holdMs ?? 0, recoveryFrom])).toEqual([
      ['proxy-latency', 10_000, 'heal'],
      ['proxy-drop', 0, 'inject'],
      ['proxy-latency', 10_000, 'heal'],
      ['proxy-drop', 0, 'inject'],
      ['proxy-refuse', 5_000, 'heal'],
      ['proxy-black-hole', 3_000, 'heal'],
    ]);
  });

  it("drops the services' PostgreSQL connections: the open one fails, a new one works", async () => {
    const url = new URL(String(context.env.payments?.['PAYMENTS_DATABASE_URL']));
    url.pathname = '/postgres'; // The routed URL's server and credentials; this run's databases do not exist here.
    const client = new Client({ connectionString: url.toString() });
    client.on('error', () => undefined);
    await client.connect();
    const drop = byName(proxyFaults(dependencies, 'full'), /^postgres connections dropped/);
    await drop.inject(context);
    await expect(client.query('SELECT 1')).rejects.toThrow();
    await drop.heal(context);
    const again = new Client({ connectionString: url.toString() });
    await again.connect();
    await expect(again.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    await again.end();
    expect(lines).toContainEqual(expect.stringMatching(/dropped 1 postgres connections/));
  });

  it("refuses the ledger's internal HTTP while injected and forwards it again once healed", async () => {
    const ledgerUrl = String(context.env.payments?.['LEDGER_INTERNAL_URL']);
    await expect(fetch(ledgerUrl).then((response) => response.text())).resolves.toBe('ledger');
    const refuse = byName(proxyFaults(dependencies, 'full'), /dropped and refused/);
    await refuse.inject(context);
    await expect(fetch(ledgerUrl)).rejects.toThrow(/fetch failed/);
    await refuse.heal(context);
    await expect(fetch(ledgerUrl).then((response) => response.text())).resolves.toBe('ledger');
  });

  it('says how to wire the broker when its proxied listener is missing', async () => {
    const unwired = await ProxiedDependencies.start();
    try {
      const [fault] = proxyFaults(unwired, 'quick');
      await expect(fault.prepare({ ...context, env: {}, infra: { ...context.infra, kafka: {} } })).rejects.toThrow(/startInfra\(\{ kafkaProxiedListener/);
    } finally {
      await unwired.close();
    }
  });
});
