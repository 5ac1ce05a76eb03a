import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ServiceKeyring, type ServiceActor } from '@mp/shared-service-auth';
import { Client } from 'pg';
import { Agent, fetch as undiciFetch } from 'undici';
import { eventually } from './eventually';
import { SignedClient, type MerchantCredentialsForTest } from './signed-client';
import { workspaceRoot } from './workspace-root';

/** The default callback URL of test merchants: `.invalid` never resolves (RFC 2606). */
export const TEST_MERCHANT_DEFAULT_CALLBACK_URL = 'https://merchant.invalid/callbacks';
const logDirectory = join(workspaceRoot, '.local/test-logs');

/** Every service of the catalog, as tests name them; the catalog's list must be exactly this. */
export type ServiceName = 'ledger' | 'disputes' | 'payments' | 'withdrawals' | 'gateway' | 'callbacks';
/** What only one service needs on top of the convention (see environmentOf). */
/** Test receivers listen on ephemeral ports; production allows 443 and 8443 (CALLBACK_ALLOWED_PORTS). */
const TEST_CALLBACK_ALLOWED_PORTS = '1-65535';
/** Every payer, operator and agent of a test is 127.0.0.1: far more than one client's share (rate-limits.e2e tests the defaults' kind). */
const TEST_ADDRESS_RATE_LIMIT = {
  GATEWAY_RATE_LIMIT_ADDRESS_PER_SECOND: '1000',
  GATEWAY_RATE_LIMIT_ADDRESS_BURST: '2000',
  GATEWAY_RATE_LIMIT_AUTH_FAILURES_BURST: '1000',
};
const EXTRA_ENV: Partial<Record<ServiceName, (system: SystemUnderTest, instance: string) => Record<string, string>>> = {
  payments: (system) => ({ PAYMENTS_SECRETS_MASTER_KEY: system.paymentsMasterKey }),
  gateway: (system, instance) => ({
    MERCHANT_SECRETS_MASTER_KEY: system.masterKey,
    CALLBACK_ALLOWED_PORTS: TEST_CALLBACK_ALLOWED_PORTS,
    ...TEST_ADDRESS_RATE_LIMIT,
    ...system.internalListenerEnv(instance),
  }),
  callbacks: (system) => system.dispatcherEnv(),
  // Operator limits (issue 20) the flows of the other specs fit in: RUB→USDT around 0.01, one operator alone up to 1,000,000 RUB or USD and 10,000 USDT.
  ledger: () => ({
    LEDGER_CONVERSION_REFERENCE_RATES: 'RUB/USDT:0.01',
    LEDGER_CONVERSION_MAX_AMOUNTS: 'RUB/USDT:1000000000',
    LEDGER_APPROVAL_THRESHOLDS: 'RUB:100000000,USD:100000000,USDT:10000000000',
  }),
};
/** A type-level list of the names, so the catalog check below cannot miss one. */
const SERVICE_NAMES: Record<ServiceName, true> = { ledger: true, disputes: true, payments: true, withdrawals: true, gateway: true, callbacks: true };

/**
 * The services, in start order, from the service catalog (deploy/catalog/services.json), the
 * list `npm start` uses too: the ledger first (payments places payout holds on it, the gateway
 * reads balances from it). By convention a service gets <NAME>_HTTP_PORT and
 * <NAME>_DATABASE_URL (its own database), and every service gets every other's
 * <NAME>_INTERNAL_URL (see environmentOf).
 */
const SERVICES = readCatalogServices();
/** The catalog's service names, in start order. */
export const CATALOG_SERVICE_NAMES: readonly ServiceName[] = SERVICES.map(({ name }) => name);

function readCatalogServices(): Array<{ name: ServiceName; entry: string; healthPath: string }> {
  const catalog = JSON.parse(readFileSync(join(workspaceRoot, 'deploy/catalog/services.json'), 'utf8')) as {
    services: Array<{ name: string; entry: string; health: { ready: string } }>;
  };
  const names = catalog.services.map(({ name }) => name);
  if ([...names].sort().join() !== Object.keys(SERVICE_NAMES).sort().join()) {
    throw new Error(
      `deploy/catalog/services.json lists ${names.join(', ')}; the test harness knows ${Object.keys(SERVICE_NAMES).join(', ')}: update ServiceName`,
    );
  }
  return catalog.services.map(({ name, entry, health }) => ({ name: name as ServiceName, entry, healthPath: health.ready }));
}

/** A running process: a service's first instance is named after it; more replicas get their own names. */
export type InstanceName = ServiceName | `${ServiceName}-${string}`;

export interface SystemOptions {
  /** Extra environment per service, e.g. fault injection or short timeouts. */
  env?: Partial<Record<ServiceName, Record<string, string>>>;
  /** Extra Node.js flags for every service process, e.g. `--cpu-prof` for the benchmark's profiles. */
  nodeArguments?: string[];
  /** Runs once the databases exist and before any service starts, e.g. provisioning a secured broker for this run's namespace. */
  beforeServices?: (system: SystemUnderTest) => Promise<void>;
  /**
   * HTTPS on every internal listener (INTERNAL_TLS_*), with keystores made by the script compose
   * runs (deploy/kafka/make-tls.sh, keytool from PATH) and the CA trusted through NODE_EXTRA_CA_CERTS.
   */
  internalTls?: boolean;
}

/** This run's internal TLS material: the CA certificate and each service's keystore. */
interface InternalTlsMaterial {
  caFile: string;
  keystoreDirOf(service: ServiceName): string;
  /** Trusts the CA in this (the test's) process, which NODE_EXTRA_CA_CERTS cannot reach once started. */
  dispatcher: Agent;
}

interface RunningService {
  process: ChildProcess;
  exited: Promise<number | null>;
  output: string[];
}

/**
 * The real system for one test file: its own databases and Kafka topic namespace on the
 * shared broker and server, and the gateway, payments and ledger services as separate
 * processes, so tests can kill and restart them like an operator would.
 */
export class SystemUnderTest {
  readonly runId = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  readonly masterKey = randomBytes(32).toString('base64');
  /** A service-token key pair per service (and one for the tests' own calls); each service gets its private key and everyone's public keys. */
  readonly serviceKeys = new ServiceKeyring();
  gatewayInternalPort = 0;
  /** Payments' own master key (recipient accounts, payer-page tokens), distinct from the gateway's. */
  readonly paymentsMasterKey = randomBytes(32).toString('base64');
  readonly ports = new Map<InstanceName, number>();
  private readonly services = new Map<InstanceName, RunningService>();
  /** Output of each instance's latest process, kept after it exits so a test can read why. */
  private readonly lastOutput = new Map<InstanceName, string[]>();
  /** Set when the system runs with options.internalTls. */
  internalTls: InternalTlsMaterial | null = null;

  private constructor(private readonly options: SystemOptions) {}

  static async start(options: SystemOptions = {}): Promise<SystemUnderTest> {
    const system = new SystemUnderTest(options);
    await system.createDatabases();
    if (options.internalTls) system.internalTls = await makeInternalTls(system.runId);
    await options.beforeServices?.(system);
    for (const { name } of SERVICES) system.ports.set(name, await freePort());
    system.gatewayInternalPort = await freePort();
    try {
      // All at once: a service's start waits mostly on Kafka and PostgreSQL, not on another
      // service (none calls another while starting), so the six overlap: about 5 s instead of 11.
      const starts = await Promise.allSettled(SERVICES.map(({ name }) => system.startService(name)));
      const failed = starts.find((start): start is PromiseRejectedResult => start.status === 'rejected');
      if (failed) throw failed.reason;
    } catch (error) {
      // The test never gets the system to stop: the services already started would outlive it
      // (and keep jest from exiting).
      await system.stop();
      throw error;
    }
    return system;
  }

  get gatewayUrl(): string {
    return this.urlOf('gateway');
  }

  get paymentsUrl(): string {
    return this.urlOf('payments');
  }

  get ledgerUrl(): string {
    return this.urlOf('ledger');
  }

  get withdrawalsUrl(): string {
    return this.urlOf('withdrawals');
  }

  get callbacksUrl(): string {
    return this.urlOf('callbacks');
  }

  /** Only the first gateway serves the dispatcher; replicas' internal listeners take any free port. */
  internalListenerEnv(instance: string): Record<string, string> {
    return { GATEWAY_INTERNAL_HTTP_PORT: instance === 'gateway' ? String(this.gatewayInternalPort) : '0' };
  }

  /**
   * The dispatcher reads webhook profiles from the gateway's internal listener, not its public
   * port that the convention's GATEWAY_INTERNAL_URL names; receivers in tests are on loopback,
   * and the test clock lets retry tests move time.
   */
  dispatcherEnv(): Record<string, string> {
    return {
      GATEWAY_INTERNAL_URL: this.gatewayInternalUrl,
      CALLBACK_ALLOWED_DESTINATIONS: '127.0.0.1',
      ALLOW_HTTP_CALLBACK_URLS: 'true',
      CALLBACK_ALLOWED_PORTS: TEST_CALLBACK_ALLOWED_PORTS,
      CALLBACK_POLL_INTERVAL_MS: '200',
      CALLBACK_ATTEMPT_TIMEOUT_MS: '2000',
      TEST_CLOCK_ENABLED: 'true',
    };
  }

  /**
   * The `authorization` header of an internal call to `callee` as `caller` would make it (the
   * gateway by default, on behalf of `actor`); the test clock is called as `test-harness`.
   */
  internalHeaders(callee: ServiceName, options: { as?: ServiceName | 'test-harness'; actor?: ServiceActor } = {}): Promise<{ authorization: string }> {
    return this.serviceKeys.headers(callee, options.as ?? 'gateway', options.actor ?? null);
  }

  /** The gateway's internal listener (webhook profiles, the test clock, /metrics). */
  get gatewayInternalUrl(): string {
    return `${this.internalTls ? 'https' : 'http'}://127.0.0.1:${this.gatewayInternalPort}`;
  }

  /** fetch for an internal listener: the same as the global one, trusting the run's CA when it has internal TLS. */
  readonly fetchInternal = (url: string, init: RequestInit = {}): Promise<Response> =>
    this.internalTls ? (undiciFetch(url, { ...(init as object), dispatcher: this.internalTls.dispatcher }) as unknown as Promise<Response>) : fetch(url, init);

  /** Moves the gateway's test clock forward (a system started with TEST_CLOCK_ENABLED); the answer's status. */
  async advanceGatewayClock(seconds: number): Promise<number> {
    const moved = await this.fetchInternal(`${this.gatewayInternalUrl}/internal/test/clock`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(await this.internalHeaders('gateway', { as: 'test-harness' })) },
      body: JSON.stringify({ advance_seconds: seconds }),
    });
    return moved.status;
  }

  /** An instance's HTTP port: the gateway's public one, every other service's internal listener (HTTPS under internalTls). */
  urlOf(instance: InstanceName): string {
    const scheme = this.internalTls && serviceDefinition(instance).name !== 'gateway' ? 'https' : 'http';
    return `${scheme}://127.0.0.1:${this.ports.get(instance)}`;
  }

  databaseUrl(service: ServiceName): string {
    const url = new URL(requiredEnv('TEST_PG_ADMIN_URL'));
    url.pathname = `/${this.runId}_${service}`;
    return url.toString();
  }

  environmentOf(instance: InstanceName, extra: Record<string, string> = {}): Record<string, string> {
    const service = serviceDefinition(instance);
    const common: Record<string, string> = {
      PATH: process.env['PATH'] ?? '',
      NODE_ENV: 'test',
      KAFKA_BROKERS: requiredEnv('KAFKA_BROKERS'),
      KAFKA_NAMESPACE: this.runId,
      KAFKA_TOPIC_PARTITIONS: '3',
      PUBLIC_BASE_URL: this.gatewayUrl,
    };
    for (const { name } of SERVICES) common[`${envPrefix(name)}_INTERNAL_URL`] = this.urlOf(name);
    const own = {
      [`${envPrefix(service.name)}_HTTP_PORT`]: String(this.ports.get(instance) ?? 0),
      [`${envPrefix(service.name)}_DATABASE_URL`]: this.databaseUrl(service.name),
      ...this.serviceKeys.environmentOf(service.name),
      ...(EXTRA_ENV[service.name]?.(this, instance) ?? {}),
      ...this.internalTlsEnvironmentOf(service.name),
    };
    return { ...common, ...own, ...(this.options.env?.[service.name] ?? {}), ...extra };
  }

  private internalTlsEnvironmentOf(service: ServiceName): Record<string, string> {
    if (!this.internalTls) return {};
    const keystoreDir = this.internalTls.keystoreDirOf(service);
    return {
      NODE_EXTRA_CA_CERTS: this.internalTls.caFile,
      INTERNAL_TLS_KEYSTORE_FILE: join(keystoreDir, 'keystore.p12'),
      INTERNAL_TLS_KEYSTORE_PASSWORD_FILE: join(keystoreDir, 'keystore.password'),
    };
  }

  async startService(instance: InstanceName, extraEnv: Record<string, string> = {}): Promise<void> {
    if (this.services.has(instance)) throw new Error(`${instance} is already running`);
    if (!this.ports.has(instance)) this.ports.set(instance, await freePort());
    mkdirSync(logDirectory, { recursive: true });
    const log = createWriteStream(join(logDirectory, `${this.runId}-${instance}.log`), { flags: 'a' });
    const child = spawn(process.execPath, ['--enable-source-maps', ...(this.options.nodeArguments ?? []), builtEntryPoint(serviceDefinition(instance).entry)], {
      cwd: workspaceRoot,
      env: this.environmentOf(instance, extraEnv),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output: string[] = [];
    const remember = (chunk: Buffer) => {
      log.write(chunk);
      output.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      if (output.length > 200) output.splice(0, output.length - 200);
    };
    child.stdout?.on('data', remember);
    child.stderr?.on('data', remember);
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    const running: RunningService = { process: child, exited, output };
    this.services.set(instance, running);
    this.lastOutput.set(instance, output);
    void exited.then(() => {
      log.end();
      if (this.services.get(instance) === running) this.services.delete(instance);
    });
    await this.waitUntilHealthy(instance, running);
  }

  /** SIGKILL, as a crash would: no shutdown hooks run. */
  async kill(instance: InstanceName): Promise<void> {
    const running = this.services.get(instance);
    if (!running) return;
    running.process.kill('SIGKILL');
    await running.exited;
  }

  /** SIGTERM, as an orchestrator stops a replica: resolves with the exit code once it has exited. */
  async terminate(instance: InstanceName, timeoutMs = 30_000): Promise<number | null> {
    const running = this.services.get(instance);
    if (!running) return null;
    running.process.kill('SIGTERM');
    return withTimeout(running.exited, timeoutMs, `${instance} did not exit within ${timeoutMs} ms of SIGTERM`);
  }

  /** Resolves when the service exits by itself (e.g. an injected crash). */
  async waitForExit(instance: InstanceName, timeoutMs = 30_000): Promise<number | null> {
    const running = this.services.get(instance);
    if (!running) return null;
    return withTimeout(running.exited, timeoutMs, `${instance} did not exit`);
  }

  async restart(instance: InstanceName, extraEnv: Record<string, string> = {}): Promise<void> {
    await this.kill(instance);
    await this.startService(instance, extraEnv);
  }

  async stop(): Promise<void> {
    const stopping = [...this.services.values()].map(async (running) => {
      running.process.kill('SIGTERM');
      // withTimeout clears its timer: a pending 10 s timer kept jest's worker from exiting.
      const exitedInTime = await withTimeout(
        running.exited.then(() => true),
        10_000,
        'no exit',
      ).catch(() => false);
      if (!exitedInTime) {
        running.process.kill('SIGKILL');
        await running.exited;
      }
    });
    await Promise.all(stopping);
  }

  /**
   * Creates a merchant with the operator command, exactly as an operator would. Like a merchant
   * in production it has a default callback URL (withdrawals and disputes are refused without
   * one); the default names a host that never resolves, so its deliveries simply fail.
   */
  async createMerchant(
    name = 'Test merchant',
    { defaultCallbackUrl = TEST_MERCHANT_DEFAULT_CALLBACK_URL }: { defaultCallbackUrl?: string | null } = {},
  ): Promise<MerchantCredentialsForTest> {
    const callbackArguments = defaultCallbackUrl ? ['--callback-url', defaultCallbackUrl] : [];
    const output = await runCommand(
      process.execPath,
      [builtEntryPoint('apps/gateway/src/create-merchant.ts'), '--name', name, ...callbackArguments, '--json'],
      this.environmentOf('gateway'),
    );
    const created = JSON.parse(output.trim().split('\n').pop() ?? '{}') as { merchant_id: string; api_secret: string };
    return { merchantId: created.merchant_id, apiSecret: created.api_secret };
  }

  async createClient(name?: string, options?: { defaultCallbackUrl?: string | null }): Promise<SignedClient> {
    return new SignedClient(this.gatewayUrl, await this.createMerchant(name, options));
  }

  /** A query against a service's own database, for checks no API exposes (e.g. counting events). */
  async query<T = Record<string, unknown>>(service: ServiceName, sql: string, parameters: unknown[] = []): Promise<T[]> {
    const client = new Client({ connectionString: this.databaseUrl(service) });
    await client.connect();
    try {
      return (await client.query(sql, parameters)).rows as T[];
    } finally {
      await client.end();
    }
  }

  /**
   * Everything every process of this run wrote, by log file name (`<runId>-<instance>.log` in
   * .local/test-logs), e.g. to check that no secret ever reaches a log line.
   */
  serviceLogs(): Map<string, string> {
    const files = readdirSync(logDirectory).filter((name) => name.startsWith(`${this.runId}-`));
    return new Map(files.map((name) => [name, readFileSync(join(logDirectory, name), 'utf8')]));
  }

  outputOf(instance: InstanceName): string[] {
    return [...(this.lastOutput.get(instance) ?? [])];
  }

  /** The operating-system process id of a running instance, e.g. for a benchmark measuring its CPU. */
  pidOf(instance: InstanceName): number | undefined {
    return this.services.get(instance)?.process.pid;
  }

  isRunning(instance: InstanceName): boolean {
    return this.services.has(instance);
  }

  private async createDatabases(): Promise<void> {
    const admin = new Client({ connectionString: requiredEnv('TEST_PG_ADMIN_URL') });
    await admin.connect();
    try {
      for (const { name } of SERVICES) await admin.query(`CREATE DATABASE "${this.runId}_${name}"`);
    } finally {
      await admin.end();
    }
  }

  private async waitUntilHealthy(service: InstanceName, running: RunningService): Promise<void> {
    const url = `${this.urlOf(service)}${serviceDefinition(service).healthPath}`;
    let exitCode: number | null | 'running' = 'running';
    void running.exited.then((code) => (exitCode = code));
    const healthy = async () => {
      if (exitCode !== 'running') throw new Error(`${service} exited with ${exitCode} while starting:\n${running.output.slice(-40).join('\n')}`);
      // Not listening yet: a refused connection.
      return this.fetchInternal(url, { signal: AbortSignal.timeout(1_000) }).then(
        (response) => response.ok,
        () => false,
      );
    };
    await eventually(healthy, Boolean, `${service} healthy`, 90_000).catch((error: Error) => {
      throw exitCode === 'running' ? new Error(`${service} did not become healthy within 90 s:\n${running.output.slice(-40).join('\n')}`) : error;
    });
  }
}

/** The service an instance runs: `payments-2` is a payments replica. */
function serviceDefinition(instance: InstanceName): (typeof SERVICES)[number] {
  const matches = SERVICES.filter(({ name }) => instance === name || instance.startsWith(`${name}-`));
  const service = matches.sort((a, b) => b.name.length - a.name.length)[0];
  if (!service) throw new Error(`no service runs as ${instance}`);
  return service;
}

/** callback-dispatcher → CALLBACK_DISPATCHER, the prefix of its variables. */
const envPrefix = (service: string) => service.toUpperCase().replaceAll('-', '_');

/**
 * The built JavaScript of an entry point (dist/, see tools/build.mjs): the test command builds
 * before any test runs, and the global setup does when jest is run directly.
 */
export function builtEntryPoint(source: string): string {
  return join(workspaceRoot, 'dist', source.replace(/\.ts$/, '.js'));
}

/**
 * Node's arguments that run an entry point from its TypeScript source (ts-node with SWC, the
 * workspace's path aliases; as `npm run config:docs` runs its script): for the integration tier,
 * which builds nothing. Slower to start than builtEntryPoint; for commands, not services.
 */
export function sourceEntryPoint(source: string): string[] {
  return ['-r', 'ts-node/register', '-r', 'tsconfig-paths/register', join(workspaceRoot, source)];
}

/** The test run's Kafka brokers, as a client takes them. */
export const testKafkaBrokers = (): string[] => requiredEnv('KAFKA_BROKERS').split(',');

/** A setting of the test run's infrastructure (KAFKA_BROKERS, TEST_PG_ADMIN_URL), which the test command's global setup sets. */
export function requiredEnv(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run the tests through the test command (npm test) or jest with the global setup`);
  return value;
}

async function withTimeout<T>(promise: Promise<T>, timeoutMs: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), timeoutMs)))]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Ports this process has handed out. The kernel may give the same free port to two `listen(0)`
 * calls in a row once the first probe has closed, and a system asks for seven before any
 * service binds: two services then got one port, the second failed with EADDRINUSE, and the
 * first answered health checks and requests meant for it.
 */
const handedOutPorts = new Set<number>();

/**
 * Jest runs test files in MP_TEST_WORKERS processes at once (tools/test.mjs), and the set above
 * knows only its own: each worker takes its own share of the ports, so two workers never hand out
 * the same one. The share is of port / 2, not of the port: Linux gives `listen(0)` odd ports only
 * (even ones are left to `connect`), so by parity alone the first worker would never get a port.
 */
const PORT_SHARES = Math.max(1, Number(process.env['MP_TEST_WORKERS'] ?? 1) || 1);
const OWN_PORT_SHARE = (Math.max(1, Number(process.env['JEST_WORKER_ID'] ?? 1) || 1) - 1) % PORT_SHARES;

const portShare = (port: number) => Math.floor(port / 2) % PORT_SHARES;

/** A loopback port free now and not handed out before by this process (or, under jest, by another worker). */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = await probeFreePort();
    if (handedOutPorts.has(port) || portShare(port) !== OWN_PORT_SHARE) continue;
    handedOutPorts.add(port);
    return port;
  }
}

function probeFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

/**
 * The run's internal TLS material, made by deploy/kafka/make-tls.sh as compose's init makes it.
 * One keystore serves every service here: they all listen on 127.0.0.1, which is the name its
 * certificate gives (compose makes one per service), and each keytool run starts a JVM.
 */
async function makeInternalTls(runId: string): Promise<InternalTlsMaterial> {
  const dir = join(workspaceRoot, '.local/test-runs', runId, 'internal-tls');
  const keystoreDir = join(dir, 'services');
  await runCommand(
    'bash',
    [
      join(workspaceRoot, 'deploy/kafka/make-tls.sh'),
      join(dir, 'ca'),
      join(dir, 'trust'),
      join(dir, 'broker'),
      'dns:localhost',
      `${keystoreDir}=dns:localhost,ip:127.0.0.1`,
    ],
    { PATH: process.env['PATH'] ?? '' },
  );
  const caFile = join(dir, 'trust', 'ca.pem');
  return { caFile, keystoreDirOf: () => keystoreDir, dispatcher: new Agent({ connect: { ca: readFileSync(caFile, 'utf8') } }) };
}

function runCommand(command: string, args: string[], env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: workspaceRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('exit', (code) => (code === 0 ? resolve(stdout) : reject(new Error(`${args.join(' ')} exited with ${code}: ${stderr}`))));
  });
}

/**
 * Runs the ledger's auditor (apps/ledger/src/audit.ts) over the system's ledger database: every
 * balance recomputed from its postings. Resolves with its exit code and output.
 */
export function runLedgerAudit(system: SystemUnderTest): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [builtEntryPoint('apps/ledger/src/audit.ts')], {
      cwd: workspaceRoot,
      env: { PATH: process.env['PATH'] ?? '', LEDGER_DATABASE_URL: system.databaseUrl('ledger') },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.stderr?.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.on('exit', (exitCode) => resolve({ code: exitCode, output: text }));
  });
}
