#!/usr/bin/env node
// Local infrastructure for the merchant payments platform: a single-node Kafka 3.9.1 broker (KRaft,
// jars from Maven Central, see /work/shared/references/kafka-local.md) and a private PostgreSQL
// cluster, both without Docker. Used by the test runner, the start script and by hand:
//
//   node deploy/local/infra.mjs up [--mode dev|test] [--verbose]   start both, stay in the foreground
//   node deploy/local/infra.mjs down                               stop dev processes left running
//
// dev mode:  persistent state in <repo>/.local/dev/{kafka,pg}, fixed ports (Kafka 127.0.0.1:19092,
//            controller 19093, Postgres 127.0.0.1:55432), superuser payments / payments-local.
// test mode: a fresh <repo>/.local/test-runs/<timestamp-pid>/ per call, free ports, random password,
//            everything removed again on stop (or by a watchdog process if this process dies).
//
// Only node built-ins are used; java, mvn and the PostgreSQL binaries are run as child processes.

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';

////////// Constants

const THIS_FILE = fileURLToPath(import.meta.url);
const REPO_ROOT = path.resolve(path.dirname(THIS_FILE), '..', '..');
const LOCAL_DIR = path.join(REPO_ROOT, '.local');
const DEV_DIR = path.join(LOCAL_DIR, 'dev');
const TEST_RUNS_DIR = path.join(LOCAL_DIR, 'test-runs');

// Keep in step with <kafka.version> in kafka/pom.xml; it keys the "jars complete" marker.
const KAFKA_VERSION = '3.9.1';
const KAFKA_POM = path.join(path.dirname(THIS_FILE), 'kafka', 'pom.xml');
const KAFKA_LIBS_DIR = path.join(LOCAL_DIR, 'kafka-libs');
const KAFKA_LIBS_MARKER = path.join(KAFKA_LIBS_DIR, `.complete-kafka-${KAFKA_VERSION}.json`);
const KAFKA_READY_LINE = 'Kafka Server started';
const KAFKA_READY_TIMEOUT_MS = 60_000;
const KAFKA_STOP_GRACE_MS = 20_000;
// Far fewer than this means Maven copied the wrong scope (the runtime closure is ~50-60 jars).
const KAFKA_MIN_JAR_COUNT = 30;

const DEV_PORTS = { kafka: 19092, kafkaController: 19093, postgres: 55432 };

const PG_SUPERUSER = 'payments';
const PG_DEV_PASSWORD = 'payments-local';
const PG_FALLBACK_SYSTEM_USER = 'payments-pg';
const PG_START_TIMEOUT_S = 60;
const PG_STOP_TIMEOUT_S = 30;
// sun_path is 108 bytes on Linux; the socket file name ".s.PGSQL.NNNNN" needs ~20 of them.
const UNIX_SOCKET_DIR_MAX_LENGTH = 85;

const CLI_NAME = 'node deploy/local/infra.mjs';

const MESSAGES = {
  javaMissing: 'Java 17 is required to run the local Kafka broker: install openjdk-17-jre-headless',
  mavenMissing: 'Maven is required to fetch Kafka jars from Maven Central: apt-get install maven',
  pgMissing: 'PostgreSQL server binaries not found: apt-get install postgresql-15',
};

////////// Small helpers

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const seconds = (startedMs) => `${((Date.now() - startedMs) / 1000).toFixed(1)}s`;
const relative = (p) => (p.startsWith(REPO_ROOT + path.sep) ? path.relative(REPO_ROOT, p) : p);
const isRoot = () => typeof process.getuid === 'function' && process.getuid() === 0;

function defaultLog(line) {
  console.error(`[infra] ${line}`);
}

/** Calls fn once; later calls return the first call's promise (stop() must be idempotent). */
function once(fn) {
  let promise;
  return () => (promise ??= fn());
}

async function exists(p) {
  try {
    await fsp.access(p);
    return true;
  } catch {
    return false;
  }
}

/** Finds an executable on PATH (plus the sbin dirs, which non-login root shells may lack). */
function which(command) {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of [...dirs, '/usr/local/sbin', '/usr/sbin', '/sbin']) {
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // Not in this directory.
    }
  }
  return null;
}

/** Absolute path of a base system tool, so a trimmed PATH cannot change which one runs. */
function systemTool(command) {
  return which(command) ?? ['/usr/bin', '/bin'].map((dir) => path.join(dir, command)).find((file) => fs.existsSync(file)) ?? command;
}

/**
 * Runs a command to completion and returns { code, signal, stdout, stderr } (never rejects on a
 * non-zero exit, callers decide). onLine receives each output line as it arrives, for progress.
 */
function run(command, args, { cwd, env, onLine } = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = { stdout: '', stderr: '' };
    for (const stream of ['stdout', 'stderr']) {
      child[stream].setEncoding('utf8');
      child[stream].on('data', (chunk) => (output[stream] += chunk));
      if (onLine) readline.createInterface({ input: child[stream] }).on('line', onLine);
    }
    child.on('error', (error) => reject(new Error(`could not run ${command}: ${error.message}`)));
    child.on('close', (code, signal) => resolve({ code, signal, ...output }));
  });
}

/** Like run(), but throws with the command's output when it exits non-zero. */
async function runChecked(command, args, options = {}) {
  const result = await run(command, args, options);
  if (result.code !== 0) {
    const output = `${result.stdout}\n${result.stderr}`.trim();
    throw new Error(`${path.basename(command)} ${args.join(' ')} failed (exit ${result.code ?? result.signal})\n${output}`);
  }
  return result;
}

/** The last lines of a (possibly large) log file, for error messages. */
async function tailFile(file, lineCount = 40) {
  try {
    const handle = await fsp.open(file, 'r');
    try {
      const { size } = await handle.stat();
      const length = Math.min(size, 64 * 1024);
      const buffer = Buffer.alloc(length);
      await handle.read(buffer, 0, length, size - length);
      return buffer.toString('utf8').split('\n').slice(-lineCount).join('\n').trimEnd();
    } finally {
      await handle.close();
    }
  } catch (error) {
    return `(could not read ${file}: ${error.code ?? error.message})`;
  }
}

async function withLogTail(message, file) {
  return new Error(`${message}\n--- last lines of ${file} ---\n${await tailFile(file)}`);
}

////////// Processes

/** True when the pid exists and is not a zombie. */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if (error.code !== 'EPERM') return false;
  }
  try {
    // Field 3 of /proc/<pid>/stat is the state; a zombie has already exited.
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // No /proc (not Linux): trust kill(0).
  }
}

/**
 * True when pid is alive and its command line mentions marker (a path of ours). Guards against
 * signalling an unrelated process that reused a pid from a stale pid file.
 */
function isOurProcess(pid, marker) {
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return false;
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').includes(marker);
  } catch {
    return true;
  }
}

async function waitForExit(pid, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

function signal(pid, name) {
  try {
    process.kill(pid, name);
  } catch {
    // Already gone.
  }
}

/** Asks politely (gentleSignal), then SIGKILLs after graceMs. Returns how it ended. */
async function terminate(pid, { gentleSignal = 'SIGTERM', graceMs, log, what }) {
  signal(pid, gentleSignal);
  if (await waitForExit(pid, graceMs)) return 'exited';
  log?.(`${what} (pid ${pid}) did not exit within ${graceMs / 1000}s, sending SIGKILL`);
  signal(pid, 'SIGKILL');
  await waitForExit(pid, 5_000);
  return 'killed';
}

/** Pids of live processes whose command line mentions dir (Linux /proc; empty elsewhere). */
function processesMentioning(dir) {
  let entries = [];
  try {
    entries = fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return entries.map(Number).filter((pid) => {
    if (pid === process.pid) return false;
    try {
      // dir itself or a path inside it, not a sibling that merely shares the prefix (run-1 / run-12).
      const words = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      return words.some((word) => word === dir || word.includes(`${dir}${path.sep}`));
    } catch {
      return false; // Exited meanwhile, or not ours to read.
    }
  });
}

/**
 * Last resort after a crash mid-startup: a broker or postmaster may have started after its pid file
 * was looked at, or an initdb/StorageTool may still be running. Anything mentioning dir goes.
 */
async function killProcessesMentioning(dir, log) {
  const pids = processesMentioning(dir);
  if (pids.length === 0) return;
  log?.(`stopping leftover processes in ${relative(dir)}: ${pids.join(', ')}`);
  await Promise.all(pids.map((pid) => terminate(pid, { graceMs: 5_000, what: `process ${pid}` })));
}

async function readPid(file) {
  try {
    const pid = Number.parseInt((await fsp.readFile(file, 'utf8')).split('\n')[0], 10);
    return Number.isInteger(pid) && pid > 0 ? pid : null;
  } catch {
    return null;
  }
}

////////// Ports

function listen(server, port) {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host: '127.0.0.1', exclusive: true }, resolve);
  });
}

const close = (server) => new Promise((resolve) => server.close(() => resolve()));

// Ports already handed out by this process, so parallel starts never pick the same one.
const portsHandedOut = new Set();

/** Finds count free loopback ports by binding port 0 (all held open together so they differ). */
export async function freePorts(count) {
  const servers = [];
  const ports = [];
  try {
    while (ports.length < count) {
      const server = net.createServer();
      await listen(server, 0);
      servers.push(server);
      const { port } = server.address();
      if (portsHandedOut.has(port)) continue;
      portsHandedOut.add(port);
      ports.push(port);
    }
  } finally {
    await Promise.all(servers.map(close));
  }
  return ports;
}

async function isPortFree(port) {
  const server = net.createServer();
  try {
    await listen(server, port);
    return true;
  } catch (error) {
    if (error.code === 'EADDRINUSE' || error.code === 'EACCES') return false;
    throw error;
  } finally {
    if (server.listening) await close(server);
  }
}

function canConnect(port, timeoutMs = 1_000) {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1' });
    const finish = (ok) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

async function waitForTcp(port, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  while (!(await canConnect(port))) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

/**
 * Dev mode uses fixed ports. A port that is taken is reported with the likely culprit: a dev
 * process of ours (stop it with `down`), or something else.
 */
async function assertDevPortFree(port, what, ourPid) {
  if (await isPortFree(port)) return;
  const culprit = ourPid
    ? `by ${what} from a previous dev run (pid ${ourPid}). Stop it with: ${CLI_NAME} down`
    : `by another process (find it with: ss -ltnp 'sport = :${port}'). Stop it, or run with --mode test to use free ports`;
  throw new Error(`${what} port 127.0.0.1:${port} is already in use ${culprit}`);
}

////////// Run directories

/** YYYYMMDDTHHMMSSmmm in UTC: sorts by time and is safe in file names. */
function timestamp() {
  return new Date().toISOString().replace(/[-:.Z]/g, '');
}

const TEST_RUN_NAME = /^\d{8}T\d{9}-(\d+)(?:-\d+)?$/;

/** <tmp>/payments-local-<hash of repo path>: where PG goes when the repo is not traversable. */
function tmpFallbackDir() {
  const hash = crypto.createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 8);
  return path.join(os.tmpdir(), `payments-local-${hash}`);
}

/**
 * A mode, a log function and the base directory the components share. In test mode the base is a
 * fresh <repo>/.local/test-runs/<timestamp>-<pid>; startInfra creates one context for both.
 */
async function createContext(options = {}) {
  const mode = options.mode ?? 'dev';
  if (mode !== 'dev' && mode !== 'test') throw new Error(`mode must be 'dev' or 'test', got ${JSON.stringify(mode)}`);
  const log = options.log ?? defaultLog;
  const verbose = Boolean(options.verbose ?? process.env.INFRA_VERBOSE);
  if (mode === 'dev') {
    await fsp.mkdir(DEV_DIR, { recursive: true });
    return { mode, log, verbose, test: false, runDir: DEV_DIR, runId: 'dev' };
  }
  await reapStaleTestRuns(log);
  await fsp.mkdir(TEST_RUNS_DIR, { recursive: true });
  const base = `${timestamp()}-${process.pid}`;
  for (let attempt = 1; ; attempt += 1) {
    const runId = attempt === 1 ? base : `${base}-${attempt}`;
    const runDir = path.join(TEST_RUNS_DIR, runId);
    try {
      await fsp.mkdir(runDir);
      return { mode, log, verbose, test: true, runDir, runId };
    } catch (error) {
      if (error.code !== 'EEXIST' || attempt >= 100) throw error;
    }
  }
}

/**
 * Removes test-run dirs whose owner process is gone, stopping anything still running in them
 * first. Dirs of live owners are kept: they belong to a test run going on in parallel.
 */
async function reapStaleTestRuns(log) {
  for (const root of [TEST_RUNS_DIR, path.join(tmpFallbackDir(), 'test-runs')]) {
    let names;
    try {
      names = await fsp.readdir(root);
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = Number(TEST_RUN_NAME.exec(name)?.[1]);
      if (!owner || owner === process.pid || isAlive(owner)) continue;
      const runDir = path.join(root, name);
      await stopComponent({ kind: 'kafka', dir: path.join(runDir, 'kafka') }, log);
      await stopComponent({ kind: 'pg', dir: path.join(runDir, 'pg') }, log);
      await killProcessesMentioning(runDir, log);
      await fsp.rm(runDir, { recursive: true, force: true });
      log(`removed old test run ${relative(runDir)}`);
    }
  }
}

/** Removes a component's dir and then its run dir if nothing else is left in it. */
async function removeComponentDir(dir) {
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.rmdir(path.dirname(dir)).catch(() => {});
}

/**
 * Stops whatever process a component dir's pid file names, without any state from the process
 * that started it. Used by `down`, the test-run reaper and the watchdog. True if it stopped one.
 */
async function stopComponent({ kind, dir }, log) {
  if (kind === 'kafka') {
    const pid = await readPid(path.join(dir, 'broker.pid'));
    if (!pid || !isOurProcess(pid, dir)) return false;
    log?.(`stopping Kafka broker (pid ${pid}) from ${relative(dir)}`);
    await terminate(pid, { graceMs: KAFKA_STOP_GRACE_MS, log, what: 'Kafka broker' });
    return true;
  }
  const dataDir = path.join(dir, 'data');
  const pid = await readPid(path.join(dataDir, 'postmaster.pid'));
  if (!pid || !isOurProcess(pid, dataDir)) return false;
  log?.(`stopping PostgreSQL (pid ${pid}) from ${relative(dir)}`);
  // SIGINT is PostgreSQL's "fast" shutdown; it needs no pg_ctl and works as root.
  await terminate(pid, { gentleSignal: 'SIGINT', graceMs: PG_STOP_TIMEOUT_S * 1000, log, what: 'PostgreSQL' });
  return true;
}

////////// Watchdog (test mode)

// Test-mode processes must not outlive this process if it dies (a crash, SIGKILL, Ctrl-C during
// startup). A detached helper reads registrations on a pipe from us; when the pipe reaches EOF
// because we are gone, it stops what is still registered and removes the dirs.
let watchdog = null;
const watchdogEntries = new Set();

function watchdogSend(message) {
  if (!watchdog) {
    watchdog = spawn(process.execPath, [THIS_FILE, '__watchdog'], {
      detached: true, // Own process group: a Ctrl-C meant for us must not kill it too.
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    watchdog.on('error', () => {});
    watchdog.stdin.on('error', () => {});
    // Neither the helper nor the pipe may keep this process alive.
    watchdog.unref();
    watchdog.stdin.unref?.();
  }
  watchdog.stdin.write(`${JSON.stringify(message)}\n`);
}

function watchdogRegister(kind, dir) {
  watchdogEntries.add(dir);
  watchdogSend({ op: 'add', kind, dir });
}

function watchdogRelease(dir) {
  if (!watchdogEntries.delete(dir) || !watchdog) return;
  watchdogSend({ op: 'remove', dir });
  if (watchdogEntries.size === 0) {
    // Nothing left to guard: let the helper exit (EOF with nothing registered is a no-op).
    watchdog.stdin.end();
    watchdog = null;
  }
}

async function watchdogMain() {
  const entries = new Map();
  // Ignore terminal signals: we exist precisely to outlive the parent.
  for (const name of ['SIGINT', 'SIGHUP']) process.on(name, () => {});
  const lines = readline.createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const message = JSON.parse(line);
    if (message.op === 'add') entries.set(message.dir, message);
    else entries.delete(message.dir);
  });
  // EOF means the parent is gone. SIGTERM (say, a CI job being torn down) means the same for us.
  await new Promise((resolve) => {
    lines.once('close', resolve);
    process.once('SIGTERM', resolve);
  });
  await Promise.all(
    [...entries.values()].map(async (entry) => {
      await stopComponent(entry);
      await killProcessesMentioning(entry.dir);
      await removeComponentDir(entry.dir);
      // A child that was mid-spawn when the parent died may only show up now: sweep once more.
      await sleep(1_000);
      await killProcessesMentioning(entry.dir);
      await removeComponentDir(entry.dir);
    }),
  );
  process.exit(0);
}

////////// Kafka: Java and jars

let javaPromise;

/** Path of a Java >= 17 binary (JAVA_HOME first, then PATH). */
function findJava() {
  javaPromise ??= (async () => {
    const fromHome = process.env.JAVA_HOME && path.join(process.env.JAVA_HOME, 'bin', 'java');
    const java = fromHome && (await exists(fromHome)) ? fromHome : which('java');
    if (!java) throw new Error(MESSAGES.javaMissing);
    const { stdout, stderr } = await run(java, ['-version']);
    const match = /version "(\d+)(?:\.(\d+))?/.exec(`${stderr}${stdout}`);
    // Java 8 and older report "1.8.0_…"; 9+ report the major version first.
    const major = match ? Number(match[1] === '1' ? match[2] : match[1]) : 0;
    if (major < 17) throw new Error(`${MESSAGES.javaMissing} (found ${match ? `Java ${major}` : 'an unknown Java'} at ${java})`);
    return java;
  })();
  javaPromise.catch(() => (javaPromise = undefined)); // Retry the lookup after an install.
  return javaPromise;
}

async function pomSha256() {
  return crypto.createHash('sha256').update(await fsp.readFile(KAFKA_POM)).digest('hex');
}

/** The marker lists every jar; the set is complete when all of them are still there. */
async function kafkaJarsComplete() {
  try {
    const marker = JSON.parse(await fsp.readFile(KAFKA_LIBS_MARKER, 'utf8'));
    if (marker.kafkaVersion !== KAFKA_VERSION || marker.pomSha256 !== (await pomSha256())) return false;
    const present = new Set(await fsp.readdir(KAFKA_LIBS_DIR));
    return marker.jars.length >= KAFKA_MIN_JAR_COUNT && marker.jars.every((jar) => present.has(jar));
  } catch {
    return false;
  }
}

let kafkaJarsPromise;

/**
 * Makes sure .local/kafka-libs holds the broker's runtime classpath. Maven copies into a private
 * temp dir that is renamed into place only when complete, so an interrupted download or a
 * parallel run never leaves a half-filled (or mixed-version) classpath behind.
 */
function ensureKafkaJars(ctx) {
  kafkaJarsPromise ??= fetchKafkaJars(ctx);
  kafkaJarsPromise.catch(() => (kafkaJarsPromise = undefined));
  return kafkaJarsPromise;
}

async function fetchKafkaJars({ log, verbose }) {
  if (await kafkaJarsComplete()) return KAFKA_LIBS_DIR;
  const mvn = which('mvn');
  if (!mvn) throw new Error(MESSAGES.mavenMissing);
  const startedMs = Date.now();
  log(`fetching Kafka ${KAFKA_VERSION} jars from Maven Central (first run only)…`);
  const tempDir = `${KAFKA_LIBS_DIR}.tmp-${process.pid}`;
  await fsp.rm(tempDir, { recursive: true, force: true });
  // -B and style.color=never: plain lines for our log; -q unless verbose, since the download
  // progress of ~60 artifacts drowns everything else.
  const args = ['-B', '-Dstyle.color=never', ...(verbose ? ['--no-transfer-progress'] : ['-q']), '-f', KAFKA_POM,
    // Pinned plugin version: Maven 3.8 would otherwise resolve whatever is newest.
    'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies',
    '-DincludeScope=runtime', `-DoutputDirectory=${tempDir}`];
  const result = await run(mvn, args, { cwd: REPO_ROOT, onLine: (line) => passThrough(log, 'mvn', line) });
  if (result.code !== 0) {
    await fsp.rm(tempDir, { recursive: true, force: true });
    throw new Error(`Maven could not fetch the Kafka jars (exit ${result.code}); see the mvn: lines above.\nCommand: mvn ${args.join(' ')}`);
  }
  const jars = (await fsp.readdir(tempDir)).filter((name) => name.endsWith('.jar')).sort();
  if (jars.length < KAFKA_MIN_JAR_COUNT) throw new Error(`Maven copied only ${jars.length} jars into ${tempDir}; expected the full runtime classpath`);
  const marker = { kafkaVersion: KAFKA_VERSION, pomSha256: await pomSha256(), jars, fetchedAt: new Date().toISOString() };
  await fsp.writeFile(path.join(tempDir, path.basename(KAFKA_LIBS_MARKER)), `${JSON.stringify(marker, null, 2)}\n`);
  await installKafkaJars(tempDir);
  log(`fetched ${jars.length} Kafka jars in ${seconds(startedMs)} into ${relative(KAFKA_LIBS_DIR)}`);
  return KAFKA_LIBS_DIR;
}

/** Logs a child's output line without colour codes; blank lines are dropped. */
function passThrough(log, prefix, line) {
  // ANSI colour codes start with ESC.
  const plain = line.replace(/\u001b\[[0-9;]*m/g, '').trimEnd();
  if (plain.trim()) log(`${prefix}: ${plain}`);
}

async function installKafkaJars(tempDir) {
  if (await kafkaJarsComplete()) {
    // Another process finished first; its copy is as good as ours.
    await fsp.rm(tempDir, { recursive: true, force: true });
    return;
  }
  await fsp.rm(KAFKA_LIBS_DIR, { recursive: true, force: true });
  try {
    await fsp.rename(tempDir, KAFKA_LIBS_DIR);
  } catch (error) {
    await fsp.rm(tempDir, { recursive: true, force: true });
    if (!(await kafkaJarsComplete())) throw error;
  }
}

////////// Kafka: configuration and storage

const escapeProperty = (value) => String(value).replaceAll('\\', '\\\\');

/** server.properties from kafka-local.md section 4, on the given ports and data dir. */
function kafkaServerProperties({ brokerPort, controllerPort, dataDir }) {
  return `# Written by deploy/local/infra.mjs on every start; edits are overwritten.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controllerPort}
listeners=PLAINTEXT://127.0.0.1:${brokerPort},CONTROLLER://127.0.0.1:${controllerPort}
advertised.listeners=PLAINTEXT://127.0.0.1:${brokerPort}
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=${escapeProperty(dataDir)}
num.partitions=1
# One partition per internal topic: the first consumer group / transaction is ready in well under
# a second instead of several seconds with the default 50.
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
group.initial.rebalance.delay.ms=0
auto.create.topics.enable=true
# Small-machine tuning; the log cleaner allocates its dedupe buffer (default 128 MiB) on the heap.
num.network.threads=2
num.io.threads=2
num.recovery.threads.per.data.dir=1
log.cleaner.dedupe.buffer.size=16777216
# The share.coordinator.* settings of kafka-local.md are 4.x-only and only warned about on 3.9.
`;
}

const KAFKA_LOG4J = `log4j.rootLogger=INFO, stdout
log4j.appender.stdout=org.apache.log4j.ConsoleAppender
log4j.appender.stdout.layout=org.apache.log4j.PatternLayout
log4j.appender.stdout.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
`;

const KAFKA_TOOLS_LOG4J = `log4j.rootLogger=WARN, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
`;

const kafkaClasspath = () => path.join(KAFKA_LIBS_DIR, '*'); // Expanded by the JVM, not a shell.

/** A Kafka Uuid: 16 random bytes, base64url without padding; never starting with '-' (CLI flag). */
function kafkaClusterId() {
  for (;;) {
    const id = crypto.randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/** Dev keeps one cluster id for its persistent log dir; tests get a new one per run. */
async function clusterIdFor(ctx, dir) {
  if (ctx.test) return kafkaClusterId();
  const file = path.join(dir, 'cluster.id');
  const saved = (await fsp.readFile(file, 'utf8').catch(() => '')).trim();
  if (saved) return saved;
  const id = kafkaClusterId();
  await fsp.writeFile(file, `${id}\n`);
  return id;
}

async function formatKafkaStorage(ctx, { java, dir, propertiesFile }) {
  const clusterId = await clusterIdFor(ctx, dir);
  const args = ['-Xmx128m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1',
    `-Dlog4j.configuration=${pathToFileURL(path.join(dir, 'tools-log4j.properties')).href}`,
    '-cp', kafkaClasspath(), 'kafka.tools.StorageTool',
    'format', '-t', clusterId, '-c', propertiesFile,
    // Dev reuses its log dir across runs; a fresh test dir never needs this.
    ...(ctx.test ? [] : ['--ignore-formatted'])];
  await runChecked(java, args, { cwd: dir });
}

async function writeKafkaConfig(dir, ports) {
  const dataDir = path.join(dir, 'data');
  await fsp.mkdir(dataDir, { recursive: true });
  const propertiesFile = path.join(dir, 'server.properties');
  await fsp.writeFile(propertiesFile, kafkaServerProperties({ ...ports, dataDir }));
  await fsp.writeFile(path.join(dir, 'log4j.properties'), KAFKA_LOG4J);
  await fsp.writeFile(path.join(dir, 'tools-log4j.properties'), KAFKA_TOOLS_LOG4J);
  return propertiesFile;
}

////////// Kafka: broker process

/**
 * Polls the log file from startOffset until needle appears. Fails fast when the process exits,
 * and after timeoutMs; both errors carry the log's tail.
 */
async function waitForLogLine(file, needle, { startOffset, timeoutMs, exitInfo }) {
  const deadline = Date.now() + timeoutMs;
  let offset = startOffset;
  let carry = ''; // The end of the previous chunk, in case the needle straddles two reads.
  for (;;) {
    const chunk = await readFrom(file, offset);
    offset += Buffer.byteLength(chunk);
    if ((carry + chunk).includes(needle)) return;
    carry = (carry + chunk).slice(-needle.length);
    const exit = exitInfo();
    if (exit) throw await withLogTail(`the Kafka broker exited during startup (${exit})`, file);
    if (Date.now() > deadline) throw await withLogTail(`the Kafka broker did not log "${needle}" within ${timeoutMs / 1000}s`, file);
    await sleep(100);
  }
}

async function readFrom(file, offset) {
  const handle = await fsp.open(file, 'r');
  try {
    const { size } = await handle.stat();
    if (size <= offset) return '';
    const buffer = Buffer.alloc(size - offset);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, offset);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

function spawnBroker({ java, dir, propertiesFile, logFile }) {
  const args = ['-Xms256m', '-Xmx512m', '-XX:+UseSerialGC', '-XX:TieredStopAtLevel=1', '-XX:+ExitOnOutOfMemoryError',
    '-Djava.awt.headless=true',
    `-Dlog4j.configuration=${pathToFileURL(path.join(dir, 'log4j.properties')).href}`,
    '-cp', kafkaClasspath(), 'kafka.Kafka', propertiesFile];
  // Output goes straight to the file (no pipe through us), so the log survives our exit.
  const logFd = fs.openSync(logFile, 'a');
  try {
    // detached: its own process group, so a terminal Ctrl-C reaches only us and we stop it in order.
    const child = spawn(java, args, { cwd: dir, detached: true, stdio: ['ignore', logFd, logFd] });
    child.unref(); // A caller that forgets stop() must not hang forever on the broker.
    return child;
  } finally {
    fs.closeSync(logFd);
  }
}

/** Formats the log dir, starts the broker and waits until it is ready; kills it on failure. */
async function launchKafka(ctx, { java, dir, ports }) {
  const propertiesFile = await writeKafkaConfig(dir, ports);
  await formatKafkaStorage(ctx, { java, dir, propertiesFile });
  const logFile = path.join(dir, 'broker.log');
  // Dev's log would grow forever; keep just the previous run's.
  if (!ctx.test) await fsp.rename(logFile, `${logFile}.prev`).catch(() => {});
  const startOffset = (await fsp.stat(logFile).catch(() => ({ size: 0 }))).size;
  const child = spawnBroker({ java, dir, propertiesFile, logFile });
  let exit = null;
  child.once('exit', (code, sig) => (exit = sig ? `signal ${sig}` : `exit code ${code}`));
  child.once('error', (error) => (exit = error.message));
  if (child.pid) await fsp.writeFile(path.join(dir, 'broker.pid'), `${child.pid}\n`);
  try {
    await waitForLogLine(logFile, KAFKA_READY_LINE, { startOffset, timeoutMs: KAFKA_READY_TIMEOUT_MS, exitInfo: () => exit });
    // The log line means the listeners are up; a real connection proves it.
    if (!(await waitForTcp(ports.brokerPort, 10_000))) throw await withLogTail(`the Kafka broker logged "${KAFKA_READY_LINE}" but 127.0.0.1:${ports.brokerPort} does not accept connections`, logFile);
  } catch (error) {
    if (child.pid) await terminate(child.pid, { graceMs: 5_000, what: 'Kafka broker' });
    throw error;
  }
  return { child, logFile, exitInfo: () => exit };
}

/** Test mode retries on a port race (another process took a port between our probe and the bind). */
const isBindError = (error) => /Address already in use|BindException/.test(error.message);

async function startKafkaIn(ctx) {
  const java = await findJava();
  await ensureKafkaJars(ctx); // Timed and logged on its own: only the first run downloads.
  const startedMs = Date.now();
  const dir = path.join(ctx.runDir, 'kafka');
  await fsp.mkdir(dir, { recursive: true });
  if (ctx.test) watchdogRegister('kafka', dir);
  else await assertDevKafkaStartable(dir);
  for (let attempt = 1; ; attempt += 1) {
    const [brokerPort, controllerPort] = ctx.test ? await freePorts(2) : [DEV_PORTS.kafka, DEV_PORTS.kafkaController];
    try {
      const broker = await launchKafka(ctx, { java, dir, ports: { brokerPort, controllerPort } });
      ctx.log(`Kafka ready at 127.0.0.1:${brokerPort} in ${seconds(startedMs)} (log: ${relative(broker.logFile)})`);
      return kafkaHandle(ctx, { dir, broker, brokerPort });
    } catch (error) {
      if (ctx.test && isBindError(error) && attempt < 3) {
        ctx.log(`Kafka port race on ${brokerPort}/${controllerPort}, retrying with new ports`);
        await fsp.rm(path.join(dir, 'data'), { recursive: true, force: true });
        continue;
      }
      if (ctx.test) {
        await removeComponentDir(dir);
        watchdogRelease(dir);
      }
      throw error;
    }
  }
}

/** A dev broker still running from an earlier `up`, or a stranger on our ports, stops us early. */
async function assertDevKafkaStartable(dir) {
  const pid = await readPid(path.join(dir, 'broker.pid'));
  const ourPid = pid && isOurProcess(pid, dir) ? pid : null;
  await assertDevPortFree(DEV_PORTS.kafka, 'Kafka', ourPid);
  await assertDevPortFree(DEV_PORTS.kafkaController, 'Kafka controller', ourPid);
  if (ourPid) throw new Error(`a Kafka broker from a previous dev run is still running (pid ${ourPid}). Stop it with: ${CLI_NAME} down`);
}

function kafkaHandle(ctx, { dir, broker, brokerPort }) {
  let stopping = false;
  const exited = new Promise((resolve) => broker.child.once('exit', (code, sig) => resolve({ code, signal: sig })));
  exited.then(({ code, signal: sig }) => {
    if (!stopping) ctx.log(`Kafka broker exited unexpectedly (${sig ?? `exit code ${code}`}); see ${relative(broker.logFile)}`);
  });
  const stop = once(async () => {
    stopping = true;
    const startedMs = Date.now();
    await terminate(broker.child.pid, { graceMs: KAFKA_STOP_GRACE_MS, log: ctx.log, what: 'Kafka broker' });
    await fsp.rm(path.join(dir, 'broker.pid'), { force: true });
    if (ctx.test) {
      await removeComponentDir(dir);
      watchdogRelease(dir);
    }
    ctx.log(`Kafka stopped in ${seconds(startedMs)}`);
  });
  return { brokers: `127.0.0.1:${brokerPort}`, port: brokerPort, pid: broker.child.pid, logFile: broker.logFile, dir, exited, stop };
}

////////// PostgreSQL: binaries and the user that runs them

let pgBinariesPromise;

/** { bindir, major }: pg_config's bindir when it has initdb, else the newest /usr/lib/postgresql/N. */
function findPgBinaries() {
  pgBinariesPromise ??= (async () => {
    const bindir = (await pgConfigBindir()) ?? (await newestDebianBindir());
    if (!bindir) throw new Error(MESSAGES.pgMissing);
    const { stdout } = await runChecked(path.join(bindir, 'pg_ctl'), ['--version']);
    const major = Number(/\(PostgreSQL\)\s+(\d+)/.exec(stdout)?.[1] ?? 0);
    return { bindir, major };
  })();
  pgBinariesPromise.catch(() => (pgBinariesPromise = undefined));
  return pgBinariesPromise;
}

async function pgConfigBindir() {
  const pgConfig = which('pg_config');
  if (!pgConfig) return null;
  const { code, stdout } = await run(pgConfig, ['--bindir']).catch(() => ({ code: 1 }));
  const bindir = code === 0 ? stdout.trim() : '';
  return bindir && (await exists(path.join(bindir, 'initdb'))) ? bindir : null;
}

async function newestDebianBindir() {
  const root = '/usr/lib/postgresql';
  const versions = (await fsp.readdir(root).catch(() => []))
    .filter((name) => /^\d+(\.\d+)?$/.test(name))
    .sort((a, b) => Number(b) - Number(a));
  for (const version of versions) {
    const bindir = path.join(root, version, 'bin');
    if (await exists(path.join(bindir, 'initdb'))) return bindir;
  }
  return null;
}

/** { name, uid, gid } of a local user, or null. getent also sees NSS users; /etc/passwd needs no tool. */
async function lookupUser(name) {
  const getent = which('getent');
  const line = getent
    ? (await run(getent, ['passwd', name]).catch(() => ({ stdout: '' }))).stdout.split('\n')[0]
    : (await fsp.readFile('/etc/passwd', 'utf8').catch(() => '')).split('\n').find((entry) => entry.startsWith(`${name}:`));
  const [entryName, , uid, gid] = (line ?? '').split(':');
  if (entryName !== name || !/^\d+$/.test(uid ?? '') || !/^\d+$/.test(gid ?? '')) return null;
  return { name, uid: Number(uid), gid: Number(gid) };
}

let pgRunAsPromise;

/**
 * PostgreSQL refuses to run as root. As root we use Debian's `postgres` system user, or create a
 * `payments-pg` one; as anyone else we simply run it ourselves (returns null).
 */
function pgRunAsUser(log) {
  if (!isRoot()) return Promise.resolve(null);
  pgRunAsPromise ??= (async () => {
    const existing = (await lookupUser('postgres')) ?? (await lookupUser(PG_FALLBACK_SYSTEM_USER));
    if (existing) return existing;
    const useradd = which('useradd');
    if (!useradd) throw new Error(`running as root, PostgreSQL needs an unprivileged user, but there is no 'postgres' user and no useradd to create '${PG_FALLBACK_SYSTEM_USER}'`);
    log(`creating system user ${PG_FALLBACK_SYSTEM_USER} to run PostgreSQL (it refuses to run as root)`);
    await runChecked(useradd, ['--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell', '/usr/sbin/nologin', PG_FALLBACK_SYSTEM_USER]);
    const created = await lookupUser(PG_FALLBACK_SYSTEM_USER);
    // Never fall through to running PostgreSQL as root: initdb refuses, with a less clear message.
    if (!created) throw new Error(`created user ${PG_FALLBACK_SYSTEM_USER} but cannot look it up`);
    return created;
  })();
  pgRunAsPromise.catch(() => (pgRunAsPromise = undefined));
  return pgRunAsPromise;
}

const shellQuote = (word) => `'${String(word).replaceAll("'", "'\\''")}'`;

/** [command, args] running command as user (unchanged when user is null). */
function asUser(user, command, args) {
  if (!user) return [command, args];
  const runuser = which('runuser');
  if (runuser) return [runuser, ['-u', user.name, '--', command, ...args]];
  return [systemTool('su'), ['-s', '/bin/sh', user.name, '-c', [command, ...args].map(shellQuote).join(' ')]];
}

const runAs = (user, command, args, options) => run(...asUser(user, command, args), options);

async function chownToUser(user, target, { recursive = false } = {}) {
  if (!user) return;
  if (recursive) await runChecked(systemTool('chown'), ['-R', `${user.uid}:${user.gid}`, target]);
  else await fsp.chown(target, user.uid, user.gid);
}

////////// PostgreSQL: cluster directory

/**
 * The directory holding data/, the log, the socket and the password file. It goes in the run dir
 * unless the PG user cannot reach it (e.g. a repo under /root): then under os.tmpdir().
 */
async function choosePgDir(ctx, user) {
  const preferred = path.join(ctx.runDir, 'pg');
  if (!user || (await userCanTraverse(user, ctx.runDir))) return preferred;
  const fallbackRoot = tmpFallbackDir();
  const parent = ctx.test ? path.join(fallbackRoot, 'test-runs', ctx.runId) : path.join(fallbackRoot, 'dev');
  for (const dir of [fallbackRoot, path.dirname(parent), parent]) {
    await fsp.mkdir(dir, { recursive: true });
    await fsp.chmod(dir, 0o755); // Ours alone, and it must be traversable whatever the umask.
  }
  if (!(await userCanTraverse(user, parent))) throw new Error(`user ${user.name} cannot reach ${relative(ctx.runDir)} nor ${parent}; PostgreSQL needs a directory it can access`);
  ctx.log(`${relative(ctx.runDir)} is not accessible to user ${user.name}; putting the PostgreSQL cluster in ${parent}/pg instead`);
  return path.join(parent, 'pg');
}

async function userCanTraverse(user, dir) {
  const { code } = await runAs(user, systemTool('test'), ['-x', dir], { cwd: '/' }).catch(() => ({ code: 1 }));
  return code === 0;
}

const quoteConf = (value) => `'${String(value).replaceAll("'", "''")}'`;

/** Settings rewritten on every start (ports can change); postgresql.conf includes this file last. */
function pgInfraConf(ctx, { port, socketDir }) {
  const lines = [
    '# Written by deploy/local/infra.mjs on every start; edits are overwritten.',
    "listen_addresses = '127.0.0.1'",
    `port = ${port}`,
    // Our own socket dir, never /var/run/postgresql (it may not exist or belong to a system cluster).
    `unix_socket_directories = ${quoteConf(socketDir)}`,
    'max_connections = 200',
  ];
  if (ctx.test) {
    // Throwaway data: trade crash safety for speed.
    lines.push('fsync = off', 'synchronous_commit = off', 'full_page_writes = off');
  }
  return `${lines.join('\n')}\n`;
}

/** A long repo path can exceed the socket path limit; then PG listens on TCP only. */
function socketDirFor(pgDir, log) {
  if (pgDir.length <= UNIX_SOCKET_DIR_MAX_LENGTH) return pgDir;
  log(`${pgDir} is too long for a unix socket path; PostgreSQL will listen on TCP only`);
  return '';
}

async function writeOwnedFile(user, file, content, mode = 0o644) {
  await fsp.writeFile(file, content, { mode });
  await fsp.chmod(file, mode);
  await chownToUser(user, file);
}

const passwordFile = (pgDir) => path.join(pgDir, 'superuser.password');

/** initdb with password auth for every connection; postgresql.conf then includes infra.conf. */
async function initCluster(ctx, { bindir, user, pgDir, dataDir, password }) {
  ctx.log(`creating a PostgreSQL cluster in ${relative(dataDir)}`);
  await writeOwnedFile(user, passwordFile(pgDir), `${password}\n`, 0o600);
  const args = ['-D', dataDir, `--username=${PG_SUPERUSER}`, `--pwfile=${passwordFile(pgDir)}`,
    '--auth=scram-sha-256', '--encoding=UTF8', '--locale=C',
    ...(ctx.test ? ['--no-sync'] : [])];
  const result = await runAs(user, path.join(bindir, 'initdb'), args, { cwd: pgDir });
  if (result.code !== 0) throw new Error(`initdb failed (exit ${result.code}):\n${result.stdout}\n${result.stderr}`.trim());
  const include = `\n# Added by deploy/local/infra.mjs: ports, socket dir and speed settings.\n${INFRA_CONF_INCLUDE}\n`;
  await fsp.appendFile(path.join(dataDir, 'postgresql.conf'), include);
}

/** Dev reuses its cluster and the password stored next to it (payments-local unless changed). */
async function devPassword(pgDir) {
  const saved = await fsp.readFile(passwordFile(pgDir), 'utf8').catch(() => '');
  return saved.split('\n')[0] || PG_DEV_PASSWORD;
}

const INFRA_CONF_INCLUDE = "include = 'infra.conf'";

/**
 * The major version of a complete dev cluster, or null if there is none. The include line is
 * appended after initdb succeeds, so without it the cluster is the remains of an interrupted
 * initdb: removed here so that initdb can start afresh.
 */
async function existingClusterMajor(ctx, dataDir) {
  const version = await fsp.readFile(path.join(dataDir, 'PG_VERSION'), 'utf8').catch(() => null);
  const conf = await fsp.readFile(path.join(dataDir, 'postgresql.conf'), 'utf8').catch(() => '');
  if (version !== null && conf.includes(INFRA_CONF_INCLUDE)) return Number(version.trim());
  if (await exists(dataDir)) {
    ctx.log(`removing the incomplete PostgreSQL cluster in ${relative(dataDir)} (an interrupted initdb)`);
    await fsp.rm(dataDir, { recursive: true, force: true });
  }
  return null;
}

/** Creates or reuses the cluster; returns the superuser password. */
async function prepareCluster(ctx, { bindir, major, user, pgDir, dataDir }) {
  if (ctx.test) {
    const password = crypto.randomBytes(18).toString('base64url');
    await initCluster(ctx, { bindir, user, pgDir, dataDir, password });
    return password;
  }
  const clusterMajor = await existingClusterMajor(ctx, dataDir);
  if (clusterMajor === null) {
    await initCluster(ctx, { bindir, user, pgDir, dataDir, password: PG_DEV_PASSWORD });
    return PG_DEV_PASSWORD;
  }
  if (clusterMajor !== major) throw new Error(`the dev cluster in ${dataDir} is PostgreSQL ${clusterMajor} but the binaries in ${bindir} are ${major}; remove ${pgDir} to start afresh`);
  // A cluster made by another user (say, an earlier non-root run) must belong to the server's user.
  if (user && (await fsp.stat(dataDir)).uid !== user.uid) await chownToUser(user, pgDir, { recursive: true });
  return devPassword(pgDir);
}

////////// PostgreSQL: server process

async function pgStart(ctx, { bindir, user, pgDir, dataDir, logFile, port }) {
  await writeOwnedFile(user, path.join(dataDir, 'infra.conf'), pgInfraConf(ctx, { port, socketDir: socketDirFor(pgDir, ctx.log) }), 0o600);
  if (!ctx.test) await fsp.rename(logFile, `${logFile}.prev`).catch(() => {});
  const result = await runAs(user, path.join(bindir, 'pg_ctl'),
    ['-D', dataDir, '-l', logFile, '-w', '-t', String(PG_START_TIMEOUT_S), 'start'], { cwd: pgDir });
  if (result.code !== 0) throw await withLogTail(`pg_ctl start failed (exit ${result.code}): ${`${result.stdout}\n${result.stderr}`.trim()}`, logFile);
  // pg_ctl -w only knows the postmaster says "ready"; pg_isready proves the TCP listener answers.
  const ready = await run(path.join(bindir, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-t', '10']);
  if (ready.code !== 0) throw await withLogTail(`PostgreSQL started but 127.0.0.1:${port} is not accepting connections: ${ready.stdout.trim()}`, logFile);
}

async function pgStop({ bindir, user, pgDir, dataDir, log }) {
  // The postmaster removes its pid file on exit: without one there is nothing to stop (and the
  // dir may be gone altogether, e.g. cleaned up by the watchdog).
  if (!(await exists(path.join(dataDir, 'postmaster.pid')))) return;
  const result = await runAs(user, path.join(bindir, 'pg_ctl'),
    ['-D', dataDir, '-m', 'fast', '-w', '-t', String(PG_STOP_TIMEOUT_S), 'stop'], { cwd: pgDir })
    .catch((error) => ({ code: -1, stdout: '', stderr: error.message }));
  if (result.code === 0) return;
  // pg_ctl failed (timed out, or the cluster dir is damaged): fall back to signals.
  log?.(`pg_ctl stop failed (${`${result.stdout} ${result.stderr}`.trim()}); signalling the postmaster`);
  await stopComponent({ kind: 'pg', dir: pgDir }, log);
}

/** Port races in test mode show up as a bind failure in pg_ctl's error; retry on new ports. */
const isPgBindError = (error) => /could not bind|Address already in use|could not create any TCP\/IP sockets/.test(error.message);

async function startPostgresIn(ctx) {
  const startedMs = Date.now();
  const { bindir, major } = await findPgBinaries();
  const user = await pgRunAsUser(ctx.log);
  const pgDir = await choosePgDir(ctx, user);
  const dataDir = path.join(pgDir, 'data');
  const logFile = path.join(pgDir, 'postgres.log');
  await fsp.mkdir(pgDir, { recursive: true, mode: 0o700 });
  await chownToUser(user, pgDir);
  const pg = { bindir, user, pgDir, dataDir, logFile, log: ctx.log };
  if (ctx.test) watchdogRegister('pg', pgDir);
  else await assertDevPostgresStartable();
  try {
    const password = await prepareCluster(ctx, { ...pg, major });
    const port = await startOnFreePort(ctx, pg);
    await verifyLogin({ bindir, host: '127.0.0.1', port, user: PG_SUPERUSER, password, database: 'postgres' }, pgDir);
    ctx.log(`PostgreSQL ${major} ready at 127.0.0.1:${port} in ${seconds(startedMs)} (log: ${relative(logFile)})`);
    return postgresHandle(ctx, pg, { port, password });
  } catch (error) {
    // Whatever got as far as running is stopped (signals: pg_ctl may not apply to a half-made cluster).
    await stopComponent({ kind: 'pg', dir: pgDir });
    if (ctx.test) {
      await removeComponentDir(pgDir);
      watchdogRelease(pgDir);
    }
    throw error;
  }
}

async function startOnFreePort(ctx, pg) {
  for (let attempt = 1; ; attempt += 1) {
    const [port] = ctx.test ? await freePorts(1) : [DEV_PORTS.postgres];
    try {
      await pgStart(ctx, { ...pg, port });
      return port;
    } catch (error) {
      if (!(ctx.test && isPgBindError(error) && attempt < 3)) throw error;
      ctx.log(`PostgreSQL port race on ${port}, retrying with a new port`);
    }
  }
}

/** Where a dev cluster can live: the repo, or the tmp fallback when the repo is not traversable. */
const devPgDirs = () => [path.join(DEV_DIR, 'pg'), path.join(tmpFallbackDir(), 'dev', 'pg')];

/** The pid of a running dev postmaster of ours, if any. */
async function runningDevPostmaster() {
  for (const pgDir of devPgDirs()) {
    const dataDir = path.join(pgDir, 'data');
    const pid = await readPid(path.join(dataDir, 'postmaster.pid'));
    if (pid && isOurProcess(pid, dataDir)) return { pid, pgDir, dataDir };
  }
  return null;
}

async function assertDevPostgresStartable() {
  const ourPid = (await runningDevPostmaster())?.pid ?? null;
  await assertDevPortFree(DEV_PORTS.postgres, 'PostgreSQL', ourPid);
  if (ourPid) throw new Error(`PostgreSQL from a previous dev run is still running (pid ${ourPid}). Stop it with: ${CLI_NAME} down`);
}

/** A password login, so a stale stored password fails here rather than in the first test. */
async function verifyLogin(connection, pgDir) {
  try {
    await psql(connection, 'SELECT 1');
  } catch (error) {
    throw new Error(`PostgreSQL is up but the superuser login failed (password stored in ${passwordFile(pgDir)}): ${error.message}`);
  }
}

function postgresHandle(ctx, pg, { port, password }) {
  const stop = once(async () => {
    const startedMs = Date.now();
    await pgStop(pg);
    if (ctx.test) {
      await removeComponentDir(pg.pgDir);
      watchdogRelease(pg.pgDir);
    }
    ctx.log(`PostgreSQL stopped in ${seconds(startedMs)}`);
  });
  const adminUrl = `postgres://${PG_SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return { adminUrl, host: '127.0.0.1', port, user: PG_SUPERUSER, password, dataDir: pg.dataDir, logFile: pg.logFile, stop };
}

////////// PostgreSQL: databases

/** Runs one SQL statement with psql and returns its unaligned output. Password via env, not argv. */
async function psql({ bindir, host, port, user, password, database }, sql) {
  const psqlBinary = bindir ? path.join(bindir, 'psql') : which('psql');
  if (!psqlBinary) throw new Error(MESSAGES.pgMissing);
  const env = { ...process.env, PGPASSWORD: password, PGCONNECT_TIMEOUT: '10' };
  const args = ['-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-h', host, '-p', String(port), '-U', user, '-d', database, '-c', sql];
  const { stdout } = await runChecked(psqlBinary, args, { env });
  return stdout;
}

const quoteIdentifier = (name) => `"${name.replaceAll('"', '""')}"`;

function connectionFromUrl(adminUrl) {
  const url = new URL(adminUrl);
  return {
    host: url.hostname,
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.slice(1)) || 'postgres',
  };
}

/** CREATE DATABASE for each name that does not exist yet; safe to call concurrently. */
export async function ensureDatabases(adminUrl, names) {
  for (const name of names) {
    if (typeof name !== 'string' || name.length === 0 || Buffer.byteLength(name) > 63 || name.includes('\0')) {
      throw new Error(`invalid database name ${JSON.stringify(name)} (1-63 bytes, no NUL)`);
    }
  }
  const bindir = (await findPgBinaries().catch(() => null))?.bindir;
  const connection = { ...connectionFromUrl(adminUrl), bindir };
  const existing = new Set((await psql(connection, 'SELECT datname FROM pg_database')).split('\n'));
  for (const name of new Set(names)) {
    if (existing.has(name)) continue;
    try {
      await psql(connection, `CREATE DATABASE ${quoteIdentifier(name)}`);
    } catch (error) {
      // Another process created it between our check and our CREATE: that is what we wanted.
      if (!/already exists/.test(error.message)) throw error;
    }
  }
}

////////// Public API

export async function startKafka(options = {}) {
  return startWithContext(options, startKafkaIn);
}

export async function startPostgres(options = {}) {
  return startWithContext(options, startPostgresIn);
}

/** A failed test-mode start must not leave its (by then empty) run dir behind. */
async function startWithContext(options, start) {
  const context = options._context ?? (await createContext(options));
  try {
    return await start(context);
  } catch (error) {
    // rmdir, not rm -r: in startInfra the other component may still be using the run dir.
    if (context.test) await fsp.rmdir(context.runDir).catch(() => {});
    throw error;
  }
}

async function devPreflight() {
  const checks = await Promise.allSettled([assertDevKafkaStartable(path.join(DEV_DIR, 'kafka')), assertDevPostgresStartable()]);
  const failures = checks.filter((check) => check.status === 'rejected').map((check) => check.reason);
  if (failures.length === 1) throw failures[0];
  if (failures.length > 1) throw new AggregateError(failures, failures.map((failure) => failure.message).join('\n'));
}

/** Starts Kafka and PostgreSQL in parallel in one run dir; if either fails, the other is stopped. */
export async function startInfra(options = {}) {
  const context = options._context ?? (await createContext(options));
  // Dev uses fixed ports: check them all first rather than start one server only to stop it again.
  if (!context.test) await devPreflight();
  const starts = [startKafkaIn, startPostgresIn].map((start) => startWithContext({ _context: context }, start));
  const [kafka, postgres] = await Promise.allSettled(starts);
  const failures = [kafka, postgres].filter((result) => result.status === 'rejected').map((result) => result.reason);
  if (failures.length > 0) {
    await Promise.allSettled([kafka, postgres].filter((result) => result.status === 'fulfilled').map((result) => result.value.stop()));
    if (context.test) await fsp.rmdir(context.runDir).catch(() => {});
    if (failures.length === 1) throw failures[0];
    throw new AggregateError(failures, failures.map((failure) => failure.message).join('\n\n'));
  }
  const stop = once(async () => {
    await Promise.all([kafka.value.stop(), postgres.value.stop()]);
    if (context.test) await fsp.rmdir(context.runDir).catch(() => {});
  });
  return { kafka: kafka.value, postgres: postgres.value, mode: context.mode, runDir: context.runDir, stop };
}

////////// CLI

function parseMode(args) {
  const index = args.indexOf('--mode');
  const inline = args.find((arg) => arg.startsWith('--mode='));
  const mode = inline ? inline.slice('--mode='.length) : index >= 0 ? args[index + 1] : 'dev';
  if (mode !== 'dev' && mode !== 'test') throw new Error(`--mode must be dev or test, got ${JSON.stringify(mode)}`);
  return mode;
}

/** Resolves on the first SIGINT/SIGTERM; later ones during shutdown are reported, not fatal. */
function shutdownSignal() {
  let received = null;
  let wake = () => {};
  const handler = (name) => {
    if (received) return defaultLog(`${name} again: still shutting down, please wait`);
    received = name;
    wake(name);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return { get received() { return received; }, wait: () => new Promise((resolve) => (received ? resolve(received) : (wake = resolve))) };
}

async function cliUp(args) {
  const mode = parseMode(args);
  const signals = shutdownSignal(); // Installed before starting, so Ctrl-C during startup still cleans up.
  const infra = await startInfra({ mode, verbose: args.includes('--verbose') });
  console.log(`KAFKA_BROKERS=${infra.kafka.brokers}`);
  console.log(`PG_ADMIN_URL=${infra.postgres.adminUrl}`);
  if (!signals.received) defaultLog(`${mode} infrastructure is up; press Ctrl-C to stop`);
  // The children are unref'd (so library callers never hang on them); this timer is what keeps
  // the foreground process alive until a signal arrives.
  const keepAlive = setInterval(() => {}, 1 << 30);
  const reason = await Promise.race([
    signals.wait().then((name) => `received ${name}`),
    infra.kafka.exited.then(() => 'the Kafka broker exited'),
  ]);
  clearInterval(keepAlive);
  defaultLog(`${reason}, shutting down…`);
  const startedMs = Date.now();
  await infra.stop();
  defaultLog(`stopped in ${seconds(startedMs)}`);
  return reason.startsWith('received') ? 0 : 1;
}

/** Stops dev processes left running, and anything orphaned by crashed test runs. */
async function cliDown() {
  const log = defaultLog;
  let stopped = 0;
  const kafkaDir = path.join(DEV_DIR, 'kafka');
  if (await stopComponent({ kind: 'kafka', dir: kafkaDir }, log)) stopped += 1;
  await fsp.rm(path.join(kafkaDir, 'broker.pid'), { force: true });
  const postmaster = await runningDevPostmaster();
  if (postmaster) {
    // pg_ctl's fast shutdown when the binaries are there; plain signals otherwise.
    const { bindir } = await findPgBinaries().catch(() => ({}));
    log(`stopping PostgreSQL (pid ${postmaster.pid}) in ${relative(postmaster.dataDir)}`);
    if (bindir) await pgStop({ bindir, user: await pgRunAsUser(log), pgDir: postmaster.pgDir, dataDir: postmaster.dataDir, log });
    else await stopComponent({ kind: 'pg', dir: postmaster.pgDir }, log);
    stopped += 1;
  }
  await reapStaleTestRuns(log);
  log(stopped > 0 ? 'dev infrastructure is down' : 'no dev Kafka or PostgreSQL was running');
  return 0;
}

async function main(argv) {
  const [command, ...args] = argv;
  if (command === 'up') return cliUp(args);
  if (command === 'down') return cliDown();
  if (command === '__watchdog') return watchdogMain();
  console.error(`usage: ${CLI_NAME} up [--mode dev|test] [--verbose]\n       ${CLI_NAME} down`);
  return 2;
}

function isMainModule() {
  try {
    return Boolean(process.argv[1]) && fs.realpathSync(process.argv[1]) === fs.realpathSync(THIS_FILE);
  } catch {
    return false;
  }
}

if (isMainModule()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code ?? 0),
    (error) => {
      defaultLog(`error: ${error.message}`);
      process.exit(1);
    },
  );
}
