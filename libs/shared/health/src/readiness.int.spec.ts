/**
 * Goal: /health/ready tells the truth about the dependencies and says which one is down;
 * /health/live stays up meanwhile. Method: a Nest app wired as the services are (TypeORM,
 * messaging port, HealthModule) against a private Kafka broker that the test freezes (SIGSTOP)
 * and thaws (SIGCONT), and against the shared PostgreSQL through a TCP proxy the test cuts and
 * restores. The shared infrastructure is never touched. Consumer lag over the bound (a group
 * whose handler never finishes) also makes it not ready.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Module, type DynamicModule, type INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Client } from 'pg';
import { createEnvelope, MESSAGE_BROKER, MessagingModule, type MessageBroker } from '@mp/shared-messaging';
import { serviceDatabaseOptions } from '@mp/shared-data-access-postgres';
import { eventually } from '@mp/shared-testing';
import { HealthModule } from './health.module';

jest.setTimeout(180_000);

const workspaceRoot = join(__dirname, '../../../..');

/** A private broker (deploy/local/infra.mjs, test mode) in a child process, so the test can freeze it. */
async function startPrivateBroker(): Promise<{ brokers: string; pid: number; stop: () => Promise<void> }> {
  const script = `import(${JSON.stringify(join(workspaceRoot, 'deploy/local/infra.mjs'))}).then(async ({ startInfra }) => {
    const infra = await startInfra({ mode: 'test', log: () => {} });
    process.stdout.write(JSON.stringify({ brokers: infra.kafka.brokers, pid: infra.kafka.pid }) + '\\n');
    // Kept alive: the test-mode watchdog stops the broker once its owner process is gone.
    const alive = setInterval(() => {}, 60_000);
    process.once('SIGTERM', () => infra.stop().finally(() => { clearInterval(alive); process.exit(0); }));
  });`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: workspaceRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  const line = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the private infrastructure did not start (exit ${code})`)));
  });
  const { brokers, pid } = JSON.parse(line) as { brokers: string; pid: number };
  return {
    brokers,
    pid,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A TCP proxy the test can cut (every connection dropped, no new ones) and restore. */
class CuttableProxy {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(this.target.port, this.target.host);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.server = server;
    this.port = (server.address() as { port: number }).port;
  }

  async cut(): Promise<void> {
    const closed = new Promise((resolve) => this.server?.close(resolve));
    this.sockets.forEach((socket) => socket.destroy());
    await closed;
    this.server = null;
  }
}

@Module({})
class ProbedAppModule {
  static forRoot(databaseUrl: string, brokers: string, consumerLagMax: number): DynamicModule {
    return {
      module: ProbedAppModule,
      imports: [
        TypeOrmModule.forRoot({ ...serviceDatabaseOptions({ url: databaseUrl, poolMax: 2, migrations: [] }), retryAttempts: 0 }),
        MessagingModule.forRootAsync({
          inject: [],
          useFactory: () => ({ clientId: 'readiness-test', brokers: brokers.split(','), namespace: `r${randomBytes(4).toString('hex')}` }),
        }),
        HealthModule.forRoot({ consumerLagMax, healthCheckTimeoutMs: 1_000 }),
      ],
    };
  }
}

async function startApp(databaseUrl: string, brokers: string, consumerLagMax = 0): Promise<{ app: INestApplication; url: string }> {
  const app = await NestFactory.create(ProbedAppModule.forRoot(databaseUrl, brokers, consumerLagMax), new FastifyAdapter(), {
    logger: ['error'],
    abortOnError: false,
  });
  await app.listen(0, '127.0.0.1');
  return { app, url: (await app.getUrl()).replace('[::1]', '127.0.0.1') };
}

async function probe(url: string, path: string): Promise<{ status: number; body: any }> {
  const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: await response.json() };
}

/** Polls readiness until it has the expected status (a pool or a client notices an outage after a moment). */
function eventuallyReady(url: string, status: number): Promise<{ status: number; body: any }> {
  return eventually(
    () => probe(url, '/health/ready'),
    (last) => last.status === status,
    `readiness ${status}`,
    60_000,
  );
}

describe('readiness probe', () => {
  const adminUrl = new URL(String(process.env['TEST_PG_ADMIN_URL']));
  const databaseName = `health_${randomBytes(4).toString('hex')}`;
  let databaseUrl: URL;

  beforeAll(async () => {
    const admin = new Client({ connectionString: adminUrl.toString() });
    await admin.connect();
    await admin.query(`CREATE DATABASE "${databaseName}"`);
    await admin.end();
    databaseUrl = new URL(adminUrl);
    databaseUrl.pathname = `/${databaseName}`;
  });

  it('goes not ready, naming the database, while PostgreSQL is unreachable, and ready again after', async () => {
    const proxy = new CuttableProxy({ host: databaseUrl.hostname, port: Number(databaseUrl.port) });
    await proxy.open();
    const proxied = new URL(databaseUrl);
    proxied.port = String(proxy.port);
    const { app, url } = await startApp(proxied.toString(), String(process.env['KAFKA_BROKERS']));
    try {
      expect(await probe(url, '/health/ready')).toMatchObject({
        status: 200,
        body: { status: 'ok', info: { database: { status: 'up' }, kafka: { status: 'up' } } },
      });
      await proxy.cut();
      const down = await eventuallyReady(url, 503);
      expect(down).toMatchObject({ status: 503, body: { status: 'error', error: { database: { status: 'down' } }, info: { kafka: { status: 'up' } } } });
      expect((await probe(url, '/health')).status).toBe(503);
      expect(await probe(url, '/health/live')).toMatchObject({ status: 200, body: { status: 'ok' } });
      await proxy.open();
      expect(await eventuallyReady(url, 200)).toMatchObject({ status: 200, body: { status: 'ok' } });
    } finally {
      await app.close();
      await proxy.cut().catch(() => undefined);
    }
  });

  it('goes not ready, naming Kafka, while the broker does not answer, and ready again after', async () => {
    const broker = await startPrivateBroker();
    let frozen = false;
    const { app, url } = await startApp(databaseUrl.toString(), broker.brokers);
    try {
      expect(await probe(url, '/health/ready')).toMatchObject({ status: 200, body: { info: { kafka: { status: 'up' } } } });
      process.kill(broker.pid, 'SIGSTOP');
      frozen = true;
      const down = await eventuallyReady(url, 503);
      expect(down).toMatchObject({ status: 503, body: { error: { kafka: { status: 'down' } }, info: { database: { status: 'up' } } } });
      expect(down.body.error.kafka.message).toMatch(/^broker unreachable/);
      expect(await probe(url, '/health/live')).toMatchObject({ status: 200 });
      process.kill(broker.pid, 'SIGCONT');
      frozen = false;
      expect(await eventuallyReady(url, 200)).toMatchObject({ status: 200, body: { info: { kafka: { status: 'up' } } } });
    } finally {
      if (frozen) process.kill(broker.pid, 'SIGCONT');
      await app.close().catch(() => undefined);
      await broker.stop();
    }
  });

  it('goes not ready when a consumer group lags more than the bound, and reports the lag', async () => {
    const { app, url } = await startApp(databaseUrl.toString(), String(process.env['KAFKA_BROKERS']), 3);
    const broker = app.get<MessageBroker>(MESSAGE_BROKER);
    const { promise: blocked, resolve: release } = Promise.withResolvers<void>();
    try {
      await broker.ensureTopics([{ topic: 'lagging', partitions: 1 }]);
      const subscription = await broker.subscribe({ groupId: 'lagging-group', topics: ['lagging'], startFrom: 'earliest', handler: () => blocked });
      await subscription.ready;
      const envelope = () => createEnvelope({ type: 'Probe', schemaVersion: 1, source: 'test', subject: 'lag', correlationId: 'lag', data: {} });
      await broker.publish(Array.from({ length: 5 }, () => ({ topic: 'lagging', key: 'lag', envelope: envelope() })));
      const down = await eventuallyReady(url, 503);
      expect(down.body.error.kafka.message).toBe('consumer lag above 3: lagging-group 5');
      expect(down.body.error.kafka.groups).toEqual([{ group: 'lagging-group', state: 'stable', lag: 5 }]);
    } finally {
      release();
      await app.close();
    }
  });
});
