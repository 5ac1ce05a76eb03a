import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { apiSecretAssociatedData, newApiSecret, newMerchantId, SecretBox } from '@mp/access-domain';
import { builtEntryPoint, freePort, workspaceRoot } from '@mp/shared-testing';
import { parsePgbenchLog, PGBENCH, pgbenchCreateScript } from './pgbench-script';
import type { MerchantCredentials } from './http-client';
import type { LoopSample } from './open-loop';

const logDirectory = join(workspaceRoot, '.local/bench-logs');

export interface RunningYardstick {
  mode: 'monolith' | 'bare';
  url: string;
  pid: number;
  database: string | null;
  merchants: MerchantCredentials[];
  stop(): Promise<void>;
}

export function databaseUrl(adminUrl: string, database: string): string {
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

async function withAdmin<T>(adminUrl: string, work: (client: Client) => Promise<T>, database?: string): Promise<T> {
  const client = new Client({ connectionString: database ? databaseUrl(adminUrl, database) : adminUrl });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Starts B2 (a database of its own, merchants sealed with its master key) or B1 (no database). */
export async function startYardstick(mode: 'monolith' | 'bare', adminUrl: string, merchantCount: number): Promise<RunningYardstick> {
  const port = await freePort();
  const merchants = Array.from({ length: merchantCount }, () => ({ merchantId: newMerchantId(), apiSecret: newApiSecret() }));
  const masterKey = randomBytes(32);
  const database = mode === 'monolith' ? `bench_yardstick_${randomBytes(4).toString('hex')}` : null;
  if (database) await withAdmin(adminUrl, (client) => client.query(`CREATE DATABASE ${database}`));
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    NODE_ENV: 'production',
    YARDSTICK_MODE: mode,
    YARDSTICK_PORT: String(port),
    ...(database
      ? { YARDSTICK_DATABASE_URL: databaseUrl(adminUrl, database), YARDSTICK_MASTER_KEY: masterKey.toString('base64') }
      : { YARDSTICK_MERCHANTS: JSON.stringify(Object.fromEntries(merchants.map((merchant) => [merchant.merchantId, merchant.apiSecret]))) }),
  };
  const child = spawnLogged(`yardstick-${mode}`, process.execPath, ['--enable-source-maps', builtEntryPoint('bench/src/yardstick/server.ts')], env);
  const url = `http://127.0.0.1:${port}`;
  await waitForHealth(url, child);
  if (database) {
    const box = new SecretBox(masterKey);
    await withAdmin(
      adminUrl,
      async (client) => {
        for (const merchant of merchants) {
          const sealed = box.seal(merchant.apiSecret, apiSecretAssociatedData(merchant.merchantId));
          await client.query(`INSERT INTO merchants (merchant_id, key_version, secret_iv, secret_auth_tag, secret_ciphertext) VALUES ($1, $2, $3, $4, $5)`, [
            merchant.merchantId,
            sealed.keyVersion,
            sealed.iv,
            sealed.authTag,
            sealed.ciphertext,
          ]);
        }
      },
      database,
    );
  }
  return { mode, url, pid: child.pid as number, database, merchants, stop: () => stopChild(child) };
}

export function spawnLogged(name: string, command: string, args: string[], env: Record<string, string>): ChildProcess {
  mkdirSync(logDirectory, { recursive: true });
  const child = spawn(command, args, { cwd: workspaceRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const logFile = join(logDirectory, `${name}.log`);
  writeFileSync(logFile, '');
  const append = (chunk: Buffer) => writeFileSync(logFile, chunk, { flag: 'a' });
  child.stdout?.on('data', append);
  child.stderr?.on('data', append);
  return child;
}

async function waitForHealth(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url} exited with ${child.exitCode} while starting (see .local/bench-logs)`);
    try {
      if ((await fetch(`${url}/health`, { signal: AbortSignal.timeout(1_000) })).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`${url} did not become healthy within 60 s`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

export interface PgbenchRun {
  /** Latencies (µs) from the scheduled start with --rate, from the actual start without. */
  latenciesMicros: number[];
  elapsedMs: number;
}

/** Runs pgbench against the yardstick's database; per-transaction latencies come from its log (-l). */
export async function runPgbench(
  adminUrl: string,
  database: string,
  options: { clients: number; durationSeconds: number; ratePerSecond?: number },
): Promise<PgbenchRun> {
  const directory = join(workspaceRoot, '.local/bench-pgbench', randomBytes(4).toString('hex'));
  mkdirSync(directory, { recursive: true });
  const scriptFile = join(directory, 'create-payin.sql');
  writeFileSync(scriptFile, pgbenchCreateScript());
  const url = new URL(adminUrl);
  const args = [
    '-n',
    '-M',
    'prepared',
    '-c',
    String(options.clients),
    '-j',
    '2',
    '-T',
    String(options.durationSeconds),
    ...(options.ratePerSecond ? ['-R', String(Math.max(1, Math.round(options.ratePerSecond)))] : []),
    '-l',
    '--log-prefix',
    join(directory, 'log'),
    '-f',
    scriptFile,
    '-h',
    url.hostname,
    '-p',
    url.port,
    '-U',
    decodeURIComponent(url.username),
    database,
  ];
  const started = performance.now();
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn(PGBENCH, args, {
      cwd: directory,
      env: { ...process.env, PGPASSWORD: decodeURIComponent(url.password) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    child.on('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`pgbench exited with ${code}:\n${text}`))));
  });
  const elapsedMs = performance.now() - started;
  const latenciesMicros = readdirSync(directory)
    .filter((name) => name.startsWith('log'))
    .flatMap((name) => parsePgbenchLog(readFileSync(join(directory, name), 'utf8')));
  rmSync(directory, { recursive: true, force: true });
  if (latenciesMicros.length === 0) throw new Error(`pgbench logged no transactions:\n${output}`);
  return { latenciesMicros, elapsedMs };
}

/** Records pgbench's transactions as the step's samples. */
export function pgbenchDrive(adminUrl: string, database: string, options: { clients: number; durationSeconds: number; ratePerSecond?: number }) {
  return async (record: (sample: LoopSample) => void) => {
    const run = await runPgbench(adminUrl, database, options);
    for (const latencyMicros of run.latenciesMicros) record({ latencyMicros: Math.max(1, latencyMicros), outcome: { status: 200, ok: true } });
    return { elapsedMs: options.durationSeconds * 1000, skipped: 0 };
  };
}
