#!/usr/bin/env node
/**
 * The start command (npm start): the whole system on this machine.
 *
 *   node deploy/local/start.mjs [--mode dev|test]
 *
 * 1. Builds dist/ (Nx; unchanged projects come from its cache), unless MP_BUILT=1 says the
 *    caller just did.
 * 2. Kafka and PostgreSQL from deploy/local/infra.mjs, unless KAFKA_BROKERS / DATABASE_URL (or
 *    every <SERVICE>_DATABASE_URL) point at running ones, in which case those are not started.
 * 3. The services of SERVICES, one process each from its built JavaScript, in that order, each
 *    started when the one before answers its health path (the catalog's health.ready). Their
 *    output goes to JSON-lines log files (LOG_FORMAT=json unless set); the terminal gets one line per service. A service that
 *    crashes is reported in one line and restarted with backoff (deploy/local/supervisor.mjs).
 * 4. A demo merchant, operator, agent and console key, made by the ops demo command
 *    (apps/ops/src/demo.ts) once per database and kept with mode 600 in the state directory,
 *    printed with the URLs and a first walk-through.
 * Ctrl-C (SIGINT), SIGTERM and SIGHUP stop everything it started: services, Kafka, PostgreSQL.
 * (package.json runs it with `exec`, so a signal npm forwards reaches it rather than a shell.)
 *
 * dev (default): state in .local/dev, Kafka 19092, PostgreSQL 55432, the services' devPorts
 *   (or <SERVICE>_HTTP_PORT).
 * test: state in MP_LOCAL_DIR (or a new temporary directory), free ports for everything, a
 *   throwaway Kafka and PostgreSQL (infra.mjs test mode): what the launcher's own tests run, so
 *   they never meet a developer's `npm start`.
 */
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { build, builtEntry } from '../../tools/build-workspace.mjs';
import { ensureDatabases, freePorts, startInfra, startKafka, startPostgres } from './infra.mjs';
import { serviceKeyEnvironment } from './service-keys.mjs';
import { ServiceSupervisor } from './supervisor.mjs';
import { envPrefix, logDir, mode, say, shown, stateDir } from './start/settings.mjs';
import { readJson, tightenStateFiles, writePrivate } from './start/state-files.mjs';
import { SERVICES, serviceEnvironment } from './start/service-list.mjs';
import { DEMO_FILES, banner, demoCredentials } from './start/demo.mjs';

/** What was started, for stopAll: infrastructure handles (each with stop()) and service supervisors. */
const startedInfra = [];
const supervisors = [];
let infraStarting = null;
let stopping = null;

/** Dev logs would grow forever: each start keeps the previous run's as <name>.log.prev. */
function rotateLogs() {
  for (const { name } of SERVICES) {
    const file = join(logDir, `${name}.log`);
    if (existsSync(file)) renameSync(file, `${file}.prev`);
  }
}

/**
 * Services left running by a launcher that was killed (SIGKILL gives it no chance to stop
 * them) would hold the dev ports: stop them, naming each. Only processes whose command line is
 * the service's built entry point are touched.
 */
async function stopLeftoverServices() {
  const previous = readJson(join(stateDir, 'endpoints.json'))?.processes ?? {};
  for (const { name, entry } of SERVICES) {
    const pid = previous[name];
    if (!Number.isInteger(pid)) continue;
    let commandLine = '';
    try {
      commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      continue; // gone
    }
    if (!commandLine.includes(builtEntry(entry))) continue;
    say(`stopping ${name} (pid ${pid}) left running by an earlier npm start`);
    process.kill(pid, 'SIGTERM');
    for (let waited = 0; waited < 15_000 && existsSync(`/proc/${pid}`); waited += 200) await new Promise((done) => setTimeout(done, 200));
  }
}

////////// Infrastructure

async function infrastructure() {
  const explicitUrls = SERVICES.every(({ name }) => process.env[`${envPrefix(name)}_DATABASE_URL`]);
  const needKafka = !process.env.KAFKA_BROKERS;
  const needPostgres = !explicitUrls && !process.env.DATABASE_URL;
  let kafka = null;
  let postgres = null;
  if (needKafka && needPostgres) {
    const infra = await startInfra({ mode });
    startedInfra.push(infra);
    ({ kafka, postgres } = infra);
  } else if (needKafka) {
    kafka = await startKafka({ mode });
    startedInfra.push(kafka);
  } else if (needPostgres) {
    postgres = await startPostgres({ mode });
    startedInfra.push(postgres);
  }
  if (!needKafka) say(`using Kafka at ${process.env.KAFKA_BROKERS} (KAFKA_BROKERS is set)`);
  kafka?.exited.then(({ code, signal }) => {
    if (!stopping) stopAll(1, `Kafka exited unexpectedly (${signal ?? `exit code ${code}`}; log ${shown(kafka.logFile)}); stopping everything`);
  });

  const databaseUrls = {};
  if (explicitUrls) {
    say('using the <SERVICE>_DATABASE_URL variables as set');
    for (const { name } of SERVICES) databaseUrls[name] = process.env[`${envPrefix(name)}_DATABASE_URL`];
  } else {
    if (!needPostgres) say('using the PostgreSQL server of DATABASE_URL, one database per service');
    const serverUrl = postgres?.adminUrl ?? process.env.DATABASE_URL;
    await ensureDatabases(
      serverUrl,
      SERVICES.map(({ name }) => name),
    );
    for (const { name } of SERVICES) databaseUrls[name] = withDatabase(serverUrl, name);
  }
  const pids = { ...(kafka ? { kafka: kafka.pid } : {}), ...(postgres ? { postgres: postmasterPid(postgres.dataDir) } : {}) };
  return { kafkaBrokers: kafka?.brokers ?? process.env.KAFKA_BROKERS, databaseUrls, pids };
}

function withDatabase(serverUrl, database) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The postmaster's pid, for endpoints.json; null when its data directory is not ours to read. */
function postmasterPid(dataDir) {
  try {
    const pid = Number.parseInt(readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0], 10);
    return Number.isInteger(pid) ? pid : null;
  } catch {
    return null;
  }
}

////////// Services

/** Each service's port, and the gateway's internal-only listener (webhook secrets for the callback dispatcher). */
async function servicePorts() {
  if (mode === 'test') {
    const ports = await freePorts(SERVICES.length + 1);
    return { ports: new Map(SERVICES.map(({ name }, index) => [name, ports[index]])), gatewayInternalPort: ports[SERVICES.length] };
  }
  const ports = new Map(SERVICES.map(({ name, devPort }) => [name, Number(process.env[`${envPrefix(name)}_HTTP_PORT`] ?? devPort)]));
  return { ports, gatewayInternalPort: Number(process.env.GATEWAY_INTERNAL_HTTP_PORT ?? 3010) };
}

/** Where this running system lives, for the local tools (npm run ledger:audit) and for stopLeftoverServices. */
function writeEndpoints(system) {
  const processes = { ...system.pids, ...Object.fromEntries(supervisors.filter((service) => service.pid).map((service) => [service.name, service.pid])) };
  const endpoints = {
    kafka_brokers: system.kafkaBrokers,
    database_urls: system.databaseUrls,
    gateway_url: system.urlOf('gateway'),
    log_dir: logDir,
    processes,
  };
  writePrivate(join(stateDir, 'endpoints.json'), `${JSON.stringify(endpoints, null, 2)}\n`);
}

async function startServices(system) {
  const width = Math.max(...SERVICES.map(({ name }) => name.length)) + 2;
  for (const service of SERVICES) {
    if (stopping) return;
    const logFile = join(logDir, `${service.name}.log`);
    const supervisor = new ServiceSupervisor({
      name: service.name,
      script: builtEntry(service.entry),
      env: serviceEnvironment(service, system),
      port: system.ports.get(service.name),
      healthPath: service.healthPath,
      logFile,
      logLabel: shown(logFile),
      say,
      onReady: (ready) => {
        console.log(
          `${ready.name.padEnd(width)} ready  ${ready.url}  pid ${ready.pid}  log ${shown(logFile)}${ready.restarts ? `  (restart ${ready.restarts})` : ''}`,
        );
        writeEndpoints(system);
      },
      onGiveUp: (reason) => stopAll(1, `${reason}; stopping everything`),
    });
    supervisors.push(supervisor);
    await supervisor.start();
  }
}

////////// Stopping

/** Stops every service (in parallel, each gracefully), then Kafka and PostgreSQL, then exits. */
function stopAll(code, reason) {
  if (stopping) {
    if (reason?.startsWith('received')) say('still stopping, please wait');
    return stopping;
  }
  stopping = (async () => {
    if (reason) say(reason);
    const startedAt = Date.now();
    await Promise.all(supervisors.map((service) => service.stop()));
    // Infrastructure still starting is waited for, so that it is stopped too.
    await infraStarting?.catch(() => undefined);
    for (const component of startedInfra.reverse()) await component.stop().catch((error) => say(`stopping infrastructure: ${error.message}`));
    say(`stopped everything in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
    process.exit(code);
  })();
  return stopping;
}

for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => stopAll(0, `received ${signal}, stopping everything`));
process.on('uncaughtException', (error) => stopAll(1, `launcher error: ${error.stack ?? error}`));
process.on('unhandledRejection', (error) => stopAll(1, `launcher error: ${error?.stack ?? error}`));

try {
  const startedAt = Date.now();
  // The state directory keeps its ordinary mode: infra.mjs may run PostgreSQL as another user
  // that must reach .local/dev/pg. The secrets in it are files of mode 600, the logs a 700 dir.
  mkdirSync(stateDir, { recursive: true });
  mkdirSync(logDir, { recursive: true, mode: 0o700 });
  tightenStateFiles();
  if (mode === 'dev') {
    await stopLeftoverServices();
    rotateLogs();
  }
  if (process.env.MP_BUILT !== '1') {
    const buildLog = join(stateDir, 'build.log');
    const { ms } = await build({ logFile: buildLog });
    say(`built dist/ in ${(ms / 1000).toFixed(1)} s (unchanged projects from the Nx cache; log ${shown(buildLog)})`);
  }
  infraStarting = infrastructure();
  const infra = await infraStarting;
  const { ports, gatewayInternalPort } = await servicePorts();
  // Service-to-service tokens: each service signs with its own key (generated once, mode 600).
  const serviceKeys = serviceKeyEnvironment(
    stateDir,
    SERVICES.map(({ name }) => name),
  );
  const system = { ...infra, ports, gatewayInternalPort, serviceKeys, urlOf: (name) => `http://127.0.0.1:${ports.get(name)}` };
  writeEndpoints(system);
  await startServices(system);
  if (!stopping) {
    const demo = await demoCredentials(system);
    const [merchant, operator, agent, consoleKey] = Object.keys(DEMO_FILES).map((fileName) => demo[fileName]);
    console.log(banner(system, { merchant, operator, agent, consoleKey, seconds: ((Date.now() - startedAt) / 1000).toFixed(1) }));
  }
  // Kafka's process handle is unref'd; this keeps the launcher (and its signal handlers) alive
  // even while no service process is running, e.g. between a crash and its restart.
  setInterval(() => {}, 1 << 30);
} catch (error) {
  if (!stopping) {
    console.error(`[start] ${error instanceof Error ? error.message : error}`);
    await stopAll(1);
  }
}
