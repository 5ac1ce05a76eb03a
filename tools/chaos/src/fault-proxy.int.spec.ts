/**
 * The TCP fault proxy against the real dependencies it stands in front of: the shared
 * PostgreSQL server, and a Kafka broker of its own started by deploy/local/infra.mjs with the
 * proxied listener (the shared broker advertises its own port, so a client bootstrapped through
 * a proxy would leave it after the first metadata answer).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Kafka, logLevel, type Consumer, type Producer } from 'kafkajs';
import { Client } from 'pg';
import { eventually, workspaceRoot } from '@mp/shared-testing';
import { FaultProxy } from './fault-proxy';

jest.setTimeout(120_000);

function pgUpstream(): { host: string; port: number } {
  const url = new URL(String(process.env['TEST_PG_ADMIN_URL']));
  return { host: url.hostname, port: Number(url.port || 5432) };
}

/** The admin URL, pointed at the proxy. */
function throughProxy(proxy: FaultProxy): string {
  const url = new URL(String(process.env['TEST_PG_ADMIN_URL']));
  url.host = proxy.address;
  return url.toString();
}

async function connectedClient(proxy: FaultProxy): Promise<Client> {
  const client = new Client({ connectionString: throughProxy(proxy), connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined); // A dropped connection is the point here; the query's rejection says so.
  await client.connect();
  return client;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const startedAt = performance.now();
  const value = await work();
  return { value, ms: performance.now() - startedAt };
}

describe('FaultProxy in front of PostgreSQL', () => {
  let proxy: FaultProxy;
  const clients: Client[] = [];
  const client = async () => {
    const connected = await connectedClient(proxy);
    clients.push(connected);
    return connected;
  };

  beforeEach(async () => {
    proxy = await FaultProxy.start({ name: 'postgres', upstream: pgUpstream() });
  });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((connected) => connected.end().catch(() => undefined)));
    await proxy.close();
  });

  it('forwards a query and its answer', async () => {
    const connected = await client();
    const { rows } = await connected.query<{ answer: number }>('SELECT 41 + 1 AS answer');
    expect(rows).toEqual([{ answer: 42 }]);
    expect(proxy.stats()).toEqual({ accepted: 1, refused: 0, dropped: 0, open: 1 });
  });

  it('delays every chunk in both directions: a query (one round trip) takes at least twice the latency', async () => {
    const connected = await client();
    const baseline = await timed(() => connected.query('SELECT 1'));
    proxy.setMode({ kind: 'latency', latencyMs: 300 });
    const delayed = await timed(() => connected.query('SELECT 1'));
    proxy.setMode({ kind: 'pass-through' });
    const healed = await timed(() => connected.query('SELECT 1'));
    expect({ delayedAtLeast600: delayed.ms >= 600 - 5, healedUnder300: healed.ms < 300 }).toEqual({ delayedAtLeast600: true, healedUnder300: true });
    expect(delayed.ms - baseline.ms).toBeGreaterThanOrEqual(550);
  });

  it('drops every open connection: the client sees a connection error, and a new connection works', async () => {
    const connected = await client();
    await connected.query('SELECT 1');
    expect(proxy.dropConnections()).toBe(1);
    await expect(connected.query('SELECT 1')).rejects.toThrow(/Connection terminated|ECONNRESET|not queryable/);
    const reconnected = await client();
    await expect(reconnected.query('SELECT 2 AS two')).resolves.toMatchObject({ rows: [{ two: 2 }] });
    expect(proxy.stats()).toMatchObject({ dropped: 1, open: 1 });
  });

  it('refuses new connections with a reset while open ones keep working, until pass-through', async () => {
    const open = await client();
    proxy.setMode({ kind: 'refuse' });
    await expect(connectedClient(proxy)).rejects.toThrow(/ECONNRESET|Connection terminated/);
    await expect(open.query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    proxy.setMode({ kind: 'pass-through' });
    await expect((await client()).query('SELECT 1 AS one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
    expect(proxy.stats().refused).toBe(1);
  });

  it('black-holes: nothing is answered while it lasts, and the held bytes go through, in order, once it ends', async () => {
    const connected = await client();
    proxy.setMode({ kind: 'black-hole' });
    const answer = connected.query<{ n: number }>('SELECT 7 AS n');
    const early = await Promise.race([answer.then(() => 'answered'), new Promise((resolve) => setTimeout(() => resolve('held'), 700))]);
    expect(early).toBe('held');
    proxy.setMode({ kind: 'pass-through' });
    await expect(answer).resolves.toMatchObject({ rows: [{ n: 7 }] });
  });

  it('refuses a negative latency', () => {
    expect(() => proxy.setMode({ kind: 'latency', latencyMs: -1 })).toThrow(/latencyMs must be a number ≥ 0/);
  });
});

/**
 * A test broker with kafkaProxiedListener, in a child process: deploy/local/infra.mjs is an ES
 * module a jest test cannot import (the same way as SecuredKafka). Prints its handle's
 * addresses as one JSON line; stops on SIGTERM. Its inputs come by environment: an argument
 * naming infra.mjs would make it run infra.mjs's command line.
 */
const BROKER_SCRIPT = `
const { startKafka } = await import(process.env.INFRA_MODULE);
const kafka = await startKafka({ mode: 'test', kafkaProxiedListener: { advertisedPort: Number(process.env.ADVERTISED_PORT) }, log: (line) => console.error(line) });
console.log(JSON.stringify({ brokers: kafka.brokers, proxiedListener: kafka.proxiedListener }));
const keepAlive = setInterval(() => undefined, 1 << 30);
process.once('SIGTERM', async () => { clearInterval(keepAlive); await kafka.stop(); process.exit(0); });
`;

interface ProxiedBroker {
  brokers: string;
  proxiedListener: { port: number; advertised: string };
}

async function startProxiedBroker(advertisedPort: number): Promise<{ broker: ProxiedBroker; launcher: ChildProcess; exited: Promise<unknown> }> {
  const env = { ...process.env, INFRA_MODULE: join(workspaceRoot, 'deploy/local/infra.mjs'), ADVERTISED_PORT: String(advertisedPort) };
  const launcher = spawn(process.execPath, ['--input-type=module', '-e', BROKER_SCRIPT], { cwd: workspaceRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => launcher.once('exit', resolve));
  const log: string[] = [];
  launcher.stderr?.on('data', (chunk: Buffer) => log.push(chunk.toString('utf8')));
  const broker = await new Promise<ProxiedBroker>((resolve, reject) => {
    void exited.then(() => reject(new Error(`the broker's launcher exited:\n${log.join('')}`)));
    createInterface({ input: launcher.stdout as NodeJS.ReadableStream }).once('line', (line) => resolve(JSON.parse(line) as ProxiedBroker));
  });
  return { broker, launcher, exited };
}

describe('FaultProxy in front of Kafka, with the broker advertising the proxy (kafkaProxiedListener)', () => {
  let proxy: FaultProxy;
  let started: Awaited<ReturnType<typeof startProxiedBroker>> | null = null;
  let kafka: Kafka;
  let producer: Producer;
  let consumer: Consumer;
  const topic = `fault-proxy-${Date.now().toString(36)}`;

  beforeAll(async () => {
    // The proxy listens first, so the broker can advertise its port; its upstream is the proxied listener, known once the broker runs.
    let upstreamPort = 0;
    proxy = await FaultProxy.start({ name: 'kafka', upstream: () => ({ host: '127.0.0.1', port: upstreamPort }) });
    started = await startProxiedBroker(proxy.port);
    upstreamPort = started.broker.proxiedListener.port;
    kafka = new Kafka({ clientId: 'fault-proxy-spec', brokers: [proxy.address], logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
    producer = kafka.producer();
    consumer = kafka.consumer({ groupId: `${topic}-group` });
  });

  afterAll(async () => {
    await producer?.disconnect().catch(() => undefined);
    await consumer?.disconnect().catch(() => undefined);
    await proxy?.close();
    if (started) {
      started.launcher.kill('SIGTERM');
      await started.exited;
    }
  });

  it('advertises the proxy, and a producer and a consumer work through it, also across dropped connections and with latency', async () => {
    expect(started?.broker.proxiedListener.advertised).toBe(proxy.address);
    const admin = kafka.admin();
    await admin.connect();
    // The metadata a client gets through the proxy names the proxy, so every later connection goes through it too.
    const cluster = await admin.describeCluster();
    expect(cluster.brokers.map(({ host, port }) => `${host}:${port}`)).toEqual([proxy.address]);
    await admin.createTopics({ topics: [{ topic, numPartitions: 1 }], waitForLeaders: true });
    await admin.disconnect();

    const received: string[] = [];
    await consumer.connect();
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void received.push(String(message.value)) });
    await producer.connect();
    await producer.send({ topic, messages: [{ value: 'before the drop' }] });
    // Counted once the consumer has fetched through the proxy: right after send() its own
    // connections may still be opening (a CI run on a busy machine counted only the producer's).
    await eventually(() => received.length >= 1, Boolean, 'the first message received', 30_000);
    expect(proxy.openConnections).toBeGreaterThanOrEqual(2);

    const dropped = proxy.dropConnections();
    expect(dropped).toBeGreaterThanOrEqual(2);
    await producer.send({ topic, messages: [{ value: 'after the drop' }] });

    proxy.setMode({ kind: 'latency', latencyMs: 500 });
    const slowSend = await timed(() => producer.send({ topic, messages: [{ value: 'with latency' }] }));
    proxy.setMode({ kind: 'pass-through' });
    expect(slowSend.ms).toBeGreaterThanOrEqual(1_000 - 5); // A produce request and its answer, each delayed.

    await eventually(() => received.length >= 3, Boolean, 'three messages received', 30_000);
    expect(received).toEqual(['before the drop', 'after the drop', 'with latency']);
    expect(proxy.stats().accepted).toBeGreaterThan(dropped);
  });
});
