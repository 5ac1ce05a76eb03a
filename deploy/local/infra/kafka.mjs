// The local Kafka broker (KRaft, one node): Java and jars from Maven Central, configuration and storage, the broker process.
// Part of deploy/local/infra.mjs, which is the entry point (API and CLI).

import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  CLI_NAME,
  DEV_PORTS,
  KAFKA_LIBS_DIR,
  KAFKA_LIBS_MARKER,
  KAFKA_MIN_JAR_COUNT,
  KAFKA_POM,
  KAFKA_READY_LINE,
  KAFKA_READY_TIMEOUT_MS,
  KAFKA_STOP_GRACE_MS,
  KAFKA_VERSION,
  MESSAGES,
  REPO_ROOT,
} from './constants.mjs';
import { exists, once, relative, run, runChecked, seconds, sleep, which, withLogTail } from './util.mjs';
import { isOurProcess, readPid, terminate } from './processes.mjs';
import { assertDevPortFree, freePorts, waitForTcp } from './ports.mjs';
import { removeComponentDir } from './run-dirs.mjs';
import { watchdogRegister, watchdogRelease } from './watchdog.mjs';
import {
  escapeProperty,
  KAFKA_ADMIN_USER,
  KAFKA_SCRAM_MECHANISM,
  listenerProperties,
  makeBrokerTls,
  proxiedListener,
  scramArguments,
} from './kafka-security.mjs';

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
  return crypto
    .createHash('sha256')
    .update(await fsp.readFile(KAFKA_POM))
    .digest('hex');
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
  const args = [
    '-B',
    '-Dstyle.color=never',
    ...(verbose ? ['--no-transfer-progress'] : ['-q']),
    '-f',
    KAFKA_POM,
    // Pinned plugin version: Maven 3.8 would otherwise resolve whatever is newest.
    'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies',
    '-DincludeScope=runtime',
    `-DoutputDirectory=${tempDir}`,
  ];
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

/** server.properties from kafka-local.md section 4, on the given ports and data dir. */
function kafkaServerProperties({ brokerPort, controllerPort, proxied, dataDir, security }) {
  return `# Written by deploy/local/infra.mjs on every start; edits are overwritten.
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:${controllerPort}
${listenerProperties({ brokerPort, controllerPort, security, proxied })}
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
# Share groups' state topic (Kafka 4.x) defaults to replication factor 3, which one broker cannot give.
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
`;
}

// Kafka 4.x logs through log4j2; its properties format needs no extra jar. The broker logs at INFO
// to stdout (the readiness line is INFO), the storage tool at WARN to stderr, as the release's
// scripts do; request and state-change chatter stays out of the broker's log.
function log4j2Properties({ level, target, quietLoggers = [] }) {
  const quiet = quietLoggers.map((name, index) => `logger.quiet${index}.name = ${name}\nlogger.quiet${index}.level = WARN\n`).join('');
  return `status = warn
appender.console.type = Console
appender.console.name = CONSOLE
appender.console.target = ${target}
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = [%d] %p %m (%c)%n
rootLogger.level = ${level}
rootLogger.appenderRef.console.ref = CONSOLE
${quiet}`;
}

const KAFKA_LOG4J2 = log4j2Properties({ level: 'INFO', target: 'SYSTEM_OUT', quietLoggers: ['kafka.request.logger', 'state.change.logger'] });
const KAFKA_TOOLS_LOG4J2 = log4j2Properties({ level: 'WARN', target: 'SYSTEM_ERR' });

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
  const args = [
    '-Xmx128m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    `-Dlog4j2.configurationFile=${path.join(dir, 'tools-log4j2.properties')}`,
    '-cp',
    kafkaClasspath(),
    'kafka.tools.StorageTool',
    'format',
    '-t',
    clusterId,
    '-c',
    propertiesFile,
    ...scramArguments(ctx.security),
    // Dev reuses its log dir across runs; a fresh test dir never needs this.
    ...(ctx.test ? [] : ['--ignore-formatted']),
  ];
  await runChecked(java, args, { cwd: dir });
}

async function writeKafkaConfig(ctx, { java, dir, ports }) {
  const dataDir = path.join(dir, 'data');
  await fsp.mkdir(dataDir, { recursive: true });
  const propertiesFile = path.join(dir, 'server.properties');
  const security = ctx.security ? { ...ctx.security, ...(await makeBrokerTls(ctx, { java, dir })) } : null;
  ctx.brokerCaFile = security?.caFile ?? null;
  await fsp.writeFile(propertiesFile, kafkaServerProperties({ ...ports, dataDir, security }), { mode: 0o600 });
  await fsp.writeFile(path.join(dir, 'log4j2.properties'), KAFKA_LOG4J2);
  await fsp.writeFile(path.join(dir, 'tools-log4j2.properties'), KAFKA_TOOLS_LOG4J2);
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
  const args = [
    // The heap starts small and grows when it must: one local broker's live heap is about 60 MB,
    // and -Xms256m kept 40 MB more resident through a whole benchmark (docs/decisions/service-heap-limits.md).
    '-Xms64m',
    '-Xmx512m',
    // A young generation of 16 MB instead of a third of the heap as it grows: the broker's RSS
    // after a gateway-cost load fell from 209 to 192 MB for 15 more young collections of a few
    // milliseconds each (docs/decisions/service-heap-limits.md).
    '-Xmn16m',
    '-XX:+UseSerialGC',
    '-XX:TieredStopAtLevel=1',
    '-XX:+ExitOnOutOfMemoryError',
    '-Djava.awt.headless=true',
    `-Dlog4j2.configurationFile=${path.join(dir, 'log4j2.properties')}`,
    '-cp',
    kafkaClasspath(),
    'kafka.Kafka',
    propertiesFile,
  ];
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
  const propertiesFile = await writeKafkaConfig(ctx, { java, dir, ports });
  await formatKafkaStorage(ctx, { java, dir, propertiesFile });
  const logFile = path.join(dir, 'broker.log');
  // Dev's log would grow forever; keep just the previous run's.
  if (!ctx.test) await fsp.rename(logFile, `${logFile}.prev`).catch(() => {});
  const startOffset = (await fsp.stat(logFile).catch(() => ({ size: 0 }))).size;
  return runBroker({ java, dir, propertiesFile, logFile, startOffset, brokerPort: ports.brokerPort });
}

/** Starts the broker on a formatted log dir and waits until it is ready; kills it on failure. */
async function runBroker({ java, dir, propertiesFile, logFile, startOffset, brokerPort }) {
  const child = spawnBroker({ java, dir, propertiesFile, logFile });
  let exit = null;
  child.once('exit', (code, sig) => (exit = sig ? `signal ${sig}` : `exit code ${code}`));
  child.once('error', (error) => (exit = error.message));
  if (child.pid) await fsp.writeFile(path.join(dir, 'broker.pid'), `${child.pid}\n`);
  try {
    await waitForLogLine(logFile, KAFKA_READY_LINE, { startOffset, timeoutMs: KAFKA_READY_TIMEOUT_MS, exitInfo: () => exit });
    // The log line means the listeners are up; a real connection proves it.
    if (!(await waitForTcp(brokerPort, 10_000)))
      throw await withLogTail(`the Kafka broker logged "${KAFKA_READY_LINE}" but 127.0.0.1:${brokerPort} does not accept connections`, logFile);
  } catch (error) {
    if (child.pid) await terminate(child.pid, { graceMs: 5_000, what: 'Kafka broker' });
    throw error;
  }
  return {
    child,
    logFile,
    exitInfo: () => exit,
    restart: async () => runBroker({ java, dir, propertiesFile, logFile, startOffset: (await fsp.stat(logFile)).size, brokerPort }),
  };
}

/** Test mode retries on a port race (another process took a port between our probe and the bind). */
const isBindError = (error) => /Address already in use|BindException/.test(error.message);

export async function startKafkaIn(ctx) {
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
      const proxied = proxiedListener(ctx.kafkaProxiedListener, ctx.kafkaProxiedListener ? (await freePorts(1))[0] : null);
      const broker = await launchKafka(ctx, { java, dir, ports: { brokerPort, controllerPort, proxied } });
      ctx.log(`Kafka ready at 127.0.0.1:${brokerPort} in ${seconds(startedMs)} (log: ${relative(broker.logFile)})`);
      return kafkaHandle(ctx, { dir, broker, brokerPort, proxied });
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
export async function assertDevKafkaStartable(dir) {
  const pid = await readPid(path.join(dir, 'broker.pid'));
  const ourPid = pid && isOurProcess(pid, dir) ? pid : null;
  await assertDevPortFree(DEV_PORTS.kafka, 'Kafka', ourPid);
  await assertDevPortFree(DEV_PORTS.kafkaController, 'Kafka controller', ourPid);
  if (ourPid) throw new Error(`a Kafka broker from a previous dev run is still running (pid ${ourPid}). Stop it with: ${CLI_NAME} down`);
}

function kafkaHandle(ctx, { dir, broker, brokerPort, proxied }) {
  let stopping = false;
  let paused = false;
  let current = broker;
  // Resolves when a broker exits that nobody stopped or paused (the first one, or one started by resume).
  const { promise: exited, resolve: reportExit } = Promise.withResolvers();
  const watch = (child) =>
    child.once('exit', (code, sig) => {
      if (stopping || paused) return;
      ctx.log(`Kafka broker exited unexpectedly (${sig ?? `exit code ${code}`}); see ${relative(broker.logFile)}`);
      reportExit({ code, signal: sig });
    });
  watch(broker.child);
  const stop = once(async () => {
    stopping = true;
    const startedMs = Date.now();
    if (!paused) await terminate(current.child.pid, { graceMs: KAFKA_STOP_GRACE_MS, log: ctx.log, what: 'Kafka broker' });
    await fsp.rm(path.join(dir, 'broker.pid'), { force: true });
    if (ctx.test) {
      await removeComponentDir(dir);
      watchdogRelease(dir);
    }
    ctx.log(`Kafka stopped in ${seconds(startedMs)}`);
  });
  // A broker restart (the chaos runner's fault, docs/operations/chaos.md): stopped like stop()
  // does, but the log dir stays, and resume() starts it again on the same port and data.
  const pause = async () => {
    if (paused || stopping) return;
    paused = true;
    await terminate(current.child.pid, { graceMs: KAFKA_STOP_GRACE_MS, log: ctx.log, what: 'Kafka broker' });
  };
  const resume = async () => {
    if (!paused || stopping) return;
    current = await current.restart();
    paused = false;
    watch(current.child);
  };
  // What a client of the secured broker needs besides the address (null on the PLAINTEXT one).
  const security = ctx.security
    ? {
        protocol: 'SASL_SSL',
        mechanism: KAFKA_SCRAM_MECHANISM,
        caFile: ctx.brokerCaFile,
        adminUser: KAFKA_ADMIN_USER,
        adminPassword: ctx.security.adminPassword,
        users: { ...ctx.security.users },
      }
    : null;
  // proxiedListener: where the fault proxy forwards to (`{ port, advertised }`), null without kafkaProxiedListener.
  return {
    brokers: `127.0.0.1:${brokerPort}`,
    port: brokerPort,
    proxiedListener: proxied,
    get pid() {
      return current.child.pid;
    },
    logFile: broker.logFile,
    dir,
    exited,
    stop,
    pause,
    resume,
    security,
  };
}
