/**
 * Goal: `npm start` is a launcher a newcomer can trust (docs/operations/local.md). It prints one
 * line per service and the banner, with the services' logs in JSON-lines files; the demo
 * credentials are readable by their owner only; a crashed service is reported and restarted,
 * and a create that failed meanwhile succeeds on retry; Ctrl-C leaves nothing running.
 * Method: the real launcher (deploy/local/start.mjs --mode test: free ports, its own state
 * directory, its own throwaway Kafka and PostgreSQL), started once for the whole file.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, SignedClient } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

const workspaceRoot = join(__dirname, '../../..');
const SERVICES = ['ledger', 'disputes', 'payments', 'withdrawals', 'gateway', 'callbacks'];
const SERVICE_LINE = /^(\S+)\s+ready {2}(http:\/\/127\.0\.0\.1:\d+) {2}pid (\d+) {2}log (\S+\.log)(?: {2}\(restart \d+\))?$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The promise's value, or 'timed out' after ms; the timer does not outlive it. */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timed out'> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<'timed out'>((resolve) => (timer = setTimeout(() => resolve('timed out'), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}

/** The launcher as a user runs it, with what it printed so far. */
class Launcher {
  readonly stdout: string[] = [];
  readonly stderr: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private readonly process: ChildProcess;

  constructor(readonly stateDir: string) {
    const env: Record<string, string | undefined> = { ...process.env, MP_LOCAL_DIR: stateDir, GATEWAY_COMMAND_TIMEOUT_MS: '3000' };
    // Its own Kafka and PostgreSQL, not the test run's: the test checks that it stops them.
    for (const name of Object.keys(env)) if (name === 'KAFKA_BROKERS' || name === 'TEST_PG_ADMIN_URL' || name.endsWith('DATABASE_URL')) delete env[name];
    this.process = spawn(process.execPath, [join(workspaceRoot, 'deploy/local/start.mjs'), '--mode', 'test'], {
      cwd: workspaceRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const collect = (into: string[]) => {
      let partial = '';
      return (chunk: Buffer) => {
        const lines = (partial + chunk.toString('utf8')).split('\n');
        partial = lines.pop() ?? '';
        into.push(...lines);
      };
    };
    this.process.stdout?.on('data', collect(this.stdout));
    this.process.stderr?.on('data', collect(this.stderr));
    this.exited = new Promise((resolve) => this.process.once('exit', (code, signal) => resolve({ code, signal })));
  }

  get pid(): number {
    return this.process.pid ?? 0;
  }

  get running(): boolean {
    return this.process.exitCode === null && this.process.signalCode === null;
  }

  signal(name: NodeJS.Signals): void {
    this.process.kill(name);
  }

  /** The index of the first stdout line from `from` on that matches, waiting for it. */
  async waitForLine(pattern: RegExp, from = 0, timeoutMs = 240_000): Promise<number> {
    const firstMatch = () => {
      const index = this.stdout.findIndex((line, position) => position >= from && pattern.test(line));
      if (index < 0 && !this.running) throw new Error(`no line matching ${pattern} (the launcher exited):\n${this.transcript()}`);
      return index;
    };
    return eventually(firstMatch, (index) => index >= 0, `a line matching ${pattern}`, timeoutMs).catch((error: Error) => {
      throw this.running ? new Error(`${error.message}:\n${this.transcript()}`) : error;
    });
  }

  transcript(): string {
    return `--- stdout\n${this.stdout.join('\n')}\n--- stderr\n${this.stderr.join('\n')}`;
  }

  endpoints(): { processes: Record<string, number>; gateway_url: string } {
    return JSON.parse(readFileSync(join(this.stateDir, 'endpoints.json'), 'utf8'));
  }
}

/** True while the pid is a live process (a zombie has already exited). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('npm start: the local launcher', () => {
  let stateDir: string;
  let launcher: Launcher;
  let bannerLine: number;

  beforeAll(async () => {
    stateDir = mkdtempSync(join(tmpdir(), 'mp-launcher-test-'));
    // Left by an earlier version: readable by anyone, made for another database.
    writeFileSync(join(stateDir, 'operator.json'), JSON.stringify({ token: 'bo_old', database_url: 'postgres://elsewhere/gateway' }));
    chmodSync(join(stateDir, 'operator.json'), 0o644);
    launcher = new Launcher(stateDir);
    bannerLine = await launcher.waitForLine(/Merchant payments is running/);
  }, 300_000);

  afterAll(async () => {
    if (launcher?.running) {
      launcher.signal('SIGINT');
      await within(launcher.exited, 60_000);
    }
    rmSync(stateDir, { recursive: true, force: true });
  }, 90_000);

  it('prints one line per service and the banner, nothing alarming, and keeps JSON-lines logs', () => {
    const beforeBanner = launcher.stdout.slice(0, bannerLine).filter((line) => line.trim() !== '' && !/^=+$/.test(line.trim()));
    const serviceLines = beforeBanner.filter((line) => SERVICE_LINE.test(line));
    expect(serviceLines.map((line) => SERVICE_LINE.exec(line)?.[1])).toEqual(SERVICES);
    // Everything else before the banner is the launcher's own [start] lines (the build, say).
    expect(beforeBanner.filter((line) => !SERVICE_LINE.test(line) && !line.startsWith('[start] '))).toEqual([]);
    expect(launcher.stderr.filter((line) => line.trim() !== '' && !line.startsWith('[infra] '))).toEqual([]);
    const printed = [...launcher.stdout, ...launcher.stderr].join('\n');
    expect(printed).not.toMatch(/ERROR|coordinator|\[Nest\]/);

    const banner = launcher.stdout.slice(bannerLine).join('\n');
    expect(banner).toContain('Local development credentials');
    expect(banner).toContain(`logs (JSON lines)  ${join(stateDir, 'logs')}/`);
    // The console: its URL and a console key for the demo merchant (issued through the back office).
    expect(banner).toMatch(/^ {3}console +http:\/\/127\.0\.0\.1:\d+\/console\/$/m);
    expect(banner).toMatch(/^ {3}console key +mck_[A-Za-z0-9_-]{43}$/m);
    // Every label in the URL block stands apart from its URL (it once read "withdrawals internalhttp://").
    for (const service of SERVICES.filter((name) => name !== 'gateway')) {
      expect(banner).toMatch(new RegExp(`^   ${service} internal +http://127\\.0\\.0\\.1:\\d+$`, 'm'));
    }

    for (const service of SERVICES) {
      const lines = readFileSync(join(stateDir, 'logs', `${service}.log`), 'utf8')
        .trim()
        .split('\n');
      expect(lines.length).toBeGreaterThan(3);
      // pino's lines: a level label, an ISO time and a message, with the service's name.
      const records = lines.map((line) => JSON.parse(line) as { level: string; time: string; message: unknown; service?: string });
      for (const record of records) expect(['info', 'warn', 'error']).toContain(record.level);
      for (const record of records) expect(record.time).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
      expect(records.filter((record) => record.level === 'error')).toEqual([]);
      expect(records.some((record) => String(record.message).startsWith(`${service} ready`))).toBe(true);
    }
  });

  it('keeps the credential files readable by their owner only (mode 600), an older one included', () => {
    const files = readdirSync(stateDir).filter((name) => name.endsWith('.json') || name === 'master.key');
    expect(files.sort()).toEqual([
      'agent.json',
      'console-key.json',
      'demo-merchant.json',
      'endpoints.json',
      'master.key',
      'operator.json',
      'service-keys.json',
    ]);
    for (const name of files) expect({ name, mode: (statSync(join(stateDir, name)).mode & 0o777).toString(8) }).toEqual({ name, mode: '600' });
    // One service-token key pair per service, generated once and handed to each service.
    const serviceKeys = JSON.parse(readFileSync(join(stateDir, 'service-keys.json'), 'utf8')) as Record<string, { private_key: string; public_key: string }>;
    expect(Object.keys(serviceKeys).sort()).toEqual(['callbacks', 'disputes', 'gateway', 'ledger', 'payments', 'withdrawals']);
    for (const pair of Object.values(serviceKeys))
      expect([pair.private_key, pair.public_key]).toEqual([expect.stringMatching(/^MC4CAQAwBQYDK2Vw/), expect.stringMatching(/^MCowBQYDK2VwAyEA/)]);
    const operator = JSON.parse(readFileSync(join(stateDir, 'operator.json'), 'utf8'));
    expect(operator.token).not.toBe('bo_old');
  });

  it('reports a payments crash in one line, restarts it, and a create that failed meanwhile succeeds on retry', async () => {
    const demo = JSON.parse(readFileSync(join(stateDir, 'demo-merchant.json'), 'utf8')) as { merchant_id: string; api_secret: string };
    const merchant = new SignedClient(launcher.endpoints().gateway_url, { merchantId: demo.merchant_id, apiSecret: demo.api_secret });
    const paymentsPid = launcher.endpoints().processes['payments'];
    const printedSoFar = launcher.stdout.length;

    process.kill(paymentsPid, 'SIGKILL');
    const orderId = newOrderId('launcher-crash');
    const body = JSON.stringify(incomingPayment(orderId));
    const whileDown = await merchant.post('/v2/payments/incoming', body);
    expect([201, 503]).toContain(whileDown.status);

    const crashLine = await launcher.waitForLine(/payments crashed/, printedSoFar, 60_000);
    expect(launcher.stdout[crashLine]).toMatch(/^\[start\] payments crashed \(signal SIGKILL\) after .* up; restarting in 1\.0 s {2}log \S+payments\.log$/);
    const readyLine = await launcher.waitForLine(/^payments\s+ready/, crashLine, 120_000);
    const newPid = Number(SERVICE_LINE.exec(launcher.stdout[readyLine])?.[3]);
    expect(newPid).not.toBe(paymentsPid);
    expect(isAlive(newPid)).toBe(true);

    // The merchant's retry, as the 503's Retry-After invites, until the restarted service answers:
    // paced as a merchant would retry (a second apart), not polled.
    const deadline = Date.now() + 60_000;
    let retry = await merchant.post('/v2/payments/incoming', body);
    while (retry.status === 503 && Date.now() < deadline) {
      await sleep(1_000);
      retry = await merchant.post('/v2/payments/incoming', body);
    }
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ order_id: orderId, status: 'PENDING' });
    const status = await merchant.get(`/v2/payments/status/${orderId}`);
    expect(status.status).toBe(200);
    expect(status.body.created_at).toBe(retry.body.created_at);
  }, 300_000);

  it('stops everything it started on SIGINT: the services, the Kafka JVM and PostgreSQL', async () => {
    const { processes } = launcher.endpoints();
    expect(Object.keys(processes).sort()).toEqual([...SERVICES, 'kafka', 'postgres'].sort());
    for (const pid of Object.values(processes)) expect(isAlive(pid)).toBe(true);

    launcher.signal('SIGINT');
    const exit = await within(launcher.exited, 90_000);
    expect(exit).toEqual({ code: 0, signal: null });
    expect(launcher.stdout.join('\n')).toMatch(/\[start\] stopped everything in/);
    const left = Object.entries(processes).filter(([, pid]) => isAlive(pid));
    expect(left).toEqual([]);
  }, 120_000);
});

describe('the launcher restart policy (deploy/local/supervisor.mjs)', () => {
  /** afterCrash over a sequence of crashes, evaluated by node itself: the module is plain ES. */
  async function decisions(uptimesMs: number[]): Promise<Array<{ giveUp: boolean; delayMs?: number }>> {
    const script = `
      import { afterCrash, RESTART_POLICY } from './deploy/local/supervisor.mjs';
      let quickCrashesBefore = 0;
      const out = [];
      for (const uptimeMs of ${JSON.stringify(uptimesMs)}) {
        const decision = afterCrash(RESTART_POLICY, { quickCrashesBefore, uptimeMs });
        quickCrashesBefore = decision.quickCrashes;
        out.push({ giveUp: decision.giveUp, delayMs: decision.delayMs });
      }
      console.log(JSON.stringify(out));`;
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: workspaceRoot });
    return JSON.parse(stdout);
  }

  it('backs off 1, 2, 4, 8 s on quick crashes and gives up at the fifth in a row', async () => {
    expect(await decisions([500, 2_000, 3_000, 10_000, 5_000])).toEqual([
      { giveUp: false, delayMs: 1_000 },
      { giveUp: false, delayMs: 2_000 },
      { giveUp: false, delayMs: 4_000 },
      { giveUp: false, delayMs: 8_000 },
      { giveUp: true },
    ]);
  });

  it('starts counting afresh after the service stayed up a minute', async () => {
    expect(await decisions([1_000, 1_000, 1_000, 1_000, 60_000, 1_000])).toEqual([
      { giveUp: false, delayMs: 1_000 },
      { giveUp: false, delayMs: 2_000 },
      { giveUp: false, delayMs: 4_000 },
      { giveUp: false, delayMs: 8_000 },
      { giveUp: false, delayMs: 1_000 },
      { giveUp: false, delayMs: 2_000 },
    ]);
  });
});
