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
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, builtEntry } from '../../tools/build-workspace.mjs';
import { parseCommandLine } from '../../tools/cli-arguments.mjs';
import { catalogServices } from '../catalog/catalog.mjs';
import { ensureDatabases, freePorts, startInfra, startKafka, startPostgres } from './infra.mjs';
import { MASTER_KEY_FILES, masterKeyringEnvironment } from './master-keyring.mjs';
import { serviceKeyEnvironment } from './service-keys.mjs';
import { ServiceSupervisor } from './supervisor.mjs';
import { requireSupportedNode } from '../../tools/node-version.mjs';

requireSupportedNode('start');

/**
 * The services, in start order, come from the service catalog (deploy/catalog/services.json):
 * adding a service is one entry there. By convention a service serves its health path on
 * <NAME>_HTTP_PORT, keeps its data in <NAME>_DATABASE_URL (a database named after it), and gets
 * every other service's <NAME>_INTERNAL_URL; EXTRA_ENV adds what only one service needs.
 */
const EXTRA_ENV = {
  payments: () => masterKeyring('PAYMENTS_SECRETS'),
  // GATEWAY_INSTANCE_ID is fixed so every start reuses one reply topic (gateway.replies.gateway-local).
  gateway: ({ gatewayInternalPort }) => ({ ...masterKeyring('MERCHANT_SECRETS'), GATEWAY_INTERNAL_HTTP_PORT: String(gatewayInternalPort), GATEWAY_INSTANCE_ID: 'gateway-local' }),
  // Webhook secrets come from the gateway's internal-only listener, not the public port the convention's GATEWAY_INTERNAL_URL names.
  // An endpoint that keeps failing is disabled like one that answered 410 (docs/operations/callbacks.md); the environment's own values win.
  callbacks: ({ gatewayInternalPort }) => ({
    GATEWAY_INTERNAL_URL: `http://127.0.0.1:${gatewayInternalPort}`,
    CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES: process.env.CALLBACK_ENDPOINT_DISABLE_AFTER_FAILURES ?? '20',
    CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES: process.env.CALLBACK_ENDPOINT_DISABLE_AFTER_MINUTES ?? '1440',
  }),
  // Operator limits for trying the back office (docs/operations/ledger.md); the environment's own values win.
  ledger: () => ({
    LEDGER_CONVERSION_REFERENCE_RATES: process.env.LEDGER_CONVERSION_REFERENCE_RATES ?? 'RUB/USDT:0.0108',
    LEDGER_CONVERSION_MAX_AMOUNTS: process.env.LEDGER_CONVERSION_MAX_AMOUNTS ?? 'RUB/USDT:1000000000',
    LEDGER_APPROVAL_THRESHOLDS: process.env.LEDGER_APPROVAL_THRESHOLDS ?? 'RUB:100000000,USDT:1000000000',
  }),
  // How long after an open a dispute's review is due (its review_deadline); the environment's own value wins.
  disputes: () => ({ DISPUTE_REVIEW_WINDOW_HOURS: process.env.DISPUTE_REVIEW_WINDOW_HOURS ?? '72' }),
};
const SERVICES = catalogServices.map(({ name, entry, devPort, health }) => ({ name, entry, devPort, healthPath: health.ready, env: EXTRA_ENV[name] }));

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
if (!existsSync(join(root, 'node_modules/.bin/tsc'))) {
  // A fresh clone: say what to do instead of failing on a missing binary.
  console.error('[start] dependencies are not installed: run `npm ci` first');
  process.exit(1);
}
const mode = parseMode();
const stateDir = mode === 'dev' ? join(root, '.local/dev') : resolve(process.env.MP_LOCAL_DIR ?? mkdtempSync(join(tmpdir(), 'mp-start-')));
const logDir = join(stateDir, 'logs');
const envPrefix = (service) => service.toUpperCase().replaceAll('-', '_');
/** A path as the user can type it: relative to where they are when it is below, else absolute. */
function shown(path) {
  const below = relative(process.cwd(), path);
  return below && !below.startsWith('..') && !isAbsolute(below) ? below : path;
}
const say = (line) => console.log(`[start] ${line}`);

/** What was started, for stopAll: infrastructure handles (each with stop()) and service supervisors. */
const startedInfra = [];
const supervisors = [];
let infraStarting = null;
let stopping = null;

function parseMode() {
  const usage = 'usage: node deploy/local/start.mjs [--mode dev|test]';
  const { values } = parseCommandLine({ options: { mode: { type: 'string', default: 'dev' } } }, usage);
  if (values.mode !== 'dev' && values.mode !== 'test') {
    console.error(usage);
    process.exit(2);
  }
  return values.mode;
}

////////// State files: credentials are readable by their owner only

function writePrivate(file, text) {
  writeFileSync(file, text, { mode: 0o600 });
  // The mode of writeFileSync applies only to a new file: an older one keeps whatever it had.
  chmodSync(file, 0o600);
}

/** Files written by earlier versions may be readable by anyone: not any more. */
function tightenStateFiles() {
  for (const name of readdirSync(stateDir)) {
    if (name.endsWith('.json') || name === 'master.key') chmodSync(join(stateDir, name), 0o600);
  }
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

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
    await ensureDatabases(serverUrl, SERVICES.map(({ name }) => name));
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

/** A service's master keyring (see master-keyring.mjs); its first key is generated once for this machine's dev state. */
function masterKeyring(prefix) {
  const keyFile = join(stateDir, MASTER_KEY_FILES[prefix]);
  if (!process.env[`${prefix}_MASTER_KEY`] && !existsSync(keyFile)) writePrivate(keyFile, randomBytes(32).toString('base64'));
  return masterKeyringEnvironment(stateDir, prefix);
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
  const endpoints = { kafka_brokers: system.kafkaBrokers, database_urls: system.databaseUrls, gateway_url: system.urlOf('gateway'), log_dir: logDir, processes };
  writePrivate(join(stateDir, 'endpoints.json'), `${JSON.stringify(endpoints, null, 2)}\n`);
}

function serviceEnvironment(service, system) {
  const internalUrls = Object.fromEntries(SERVICES.map(({ name }) => [`${envPrefix(name)}_INTERNAL_URL`, system.urlOf(name)]));
  return {
    ...process.env,
    LOG_FORMAT: process.env.LOG_FORMAT ?? 'json',
    KAFKA_BROKERS: system.kafkaBrokers,
    PUBLIC_BASE_URL: system.urlOf('gateway'),
    ...internalUrls,
    [`${envPrefix(service.name)}_HTTP_PORT`]: String(system.ports.get(service.name)),
    [`${envPrefix(service.name)}_DATABASE_URL`]: system.databaseUrls[service.name],
    ...system.serviceKeys(service.name),
    ...(service.env?.(system) ?? {}),
  };
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
        console.log(`${ready.name.padEnd(width)} ready  ${ready.url}  pid ${ready.pid}  log ${shown(logFile)}${ready.restarts ? `  (restart ${ready.restarts})` : ''}`);
        writeEndpoints(system);
      },
      onGiveUp: (reason) => stopAll(1, `${reason}; stopping everything`),
    });
    supervisors.push(supervisor);
    await supervisor.start();
  }
}

////////// Demo merchant, operator, agent and console key

function runCli(entry, args, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [builtEntry(entry), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('exit', (code) => (code === 0 ? resolvePromise(output) : reject(new Error(`${entry} exited with ${code}: ${errors.trim()}`))));
  });
}

/** The files npm start keeps the demo's credentials in, each with the fields of the demo command's answer it takes. */
const DEMO_FILES = {
  'demo-merchant.json': (demo) => ({ merchant_id: demo.merchant_id, name: demo.merchant_name, api_secret: demo.api_secret, webhook_secret: demo.webhook_secret }),
  'operator.json': (demo) => ({ credential_id: demo.operator_credential_id, operator_id: demo.operator_id, name: 'Demo operator', expires_at: demo.operator_expires_at, token: demo.operator_token }),
  'agent.json': (demo) => ({ agent_id: demo.agent_id, name: demo.agent_name, token: demo.agent_token }),
  'console-key.json': (demo) => ({ key_id: demo.console_key_id, console_key: demo.console_key, expires_at: demo.console_key_expires_at }),
};

/**
 * The demo merchant, operator, agent (serving every method the merchant has) and console key,
 * made by the ops demo command (apps/ops/src/demo.ts, the one place demo data is made) once per
 * dev database and saved, one file each; all made again when any of them is missing or was
 * made for another database.
 */
async function demoCredentials(system) {
  const databaseUrl = system.databaseUrls.gateway;
  const saved = Object.fromEntries(Object.keys(DEMO_FILES).map((fileName) => [fileName, readJson(join(stateDir, fileName))]));
  if (Object.values(saved).every((file) => file?.database_url === databaseUrl)) return saved;
  const gateway = SERVICES.find(({ name }) => name === 'gateway');
  const answer = await runCli('apps/ops/src/demo.ts', ['--json', '--no-save'], { ...serviceEnvironment(gateway, system), GATEWAY_URL: system.urlOf('gateway') });
  const demo = JSON.parse(answer.trim().split('\n').pop());
  const made = {};
  for (const [fileName, fieldsOf] of Object.entries(DEMO_FILES)) {
    made[fileName] = { ...fieldsOf(demo), base_url: system.urlOf('gateway'), database_url: databaseUrl };
    writePrivate(join(stateDir, fileName), JSON.stringify(made[fileName], null, 2));
  }
  return made;
}

function banner(system, { merchant, operator, agent, consoleKey, seconds }) {
  const gatewayUrl = system.urlOf('gateway');
  // Labels are padded to the URL column (19), and always keep at least one space before the URL.
  const internal = SERVICES.filter(({ name }) => name !== 'gateway').map(({ name }) => `   ${`${name} internal`.padEnd(18)} ${system.urlOf(name)}`);
  const orderId = `demo-${Date.now().toString(36)}`;
  const state = shown(stateDir);
  return `
================================================================================
 Merchant payments is running (started in ${seconds} s)

   API (/v2)          ${gatewayUrl}/v2
   back office        ${gatewayUrl}/backoffice/v1   (Authorization: Bearer <token>)
   console            ${gatewayUrl}/console/
${internal.join('\n')}
   Kafka              ${system.kafkaBrokers}
   logs (JSON lines)  ${shown(logDir)}/
   callback log       npm run backoffice -- callbacks <merchant_id> <order_id>

 Local development credentials of the demo: they exist only in this machine's development
 database, are saved readable by you alone (mode 600) in ${state}/, and are no one's real secrets.
   merchant x-api-key ${merchant.merchant_id}
   API secret         ${merchant.api_secret}
   webhook secret     ${merchant.webhook_secret}
   operator token     ${operator.token}
   agent token        ${agent.token}
   console key        ${consoleKey.console_key}

 The console (${gatewayUrl}/console/): choose a role and paste its credential
   Merchant           the console key above (operators issue more in the back office)
   Payment agent      the agent token        Operator   the operator token

 Try it (in another terminal): a pay-in, its payer page, the agent confirms, the balance moves
   npm run request -- POST /v2/payments/incoming '{"order_id":"${orderId}","amount":1500.50,"currency":"RUB","country":"RU","callback_url":"https://shop.example/callbacks"}'
   (open its redirect_url in a browser, press "Show payment details", then "I have paid")
   npm run backoffice -- --as-agent confirm ${merchant.merchant_id} ${orderId}
   npm run request -- GET /v2/payments/status/${orderId}
   npm run request -- GET /v2/merchant/balances

 A service that crashes is reported here and restarted.
 Ctrl-C stops everything: the services, Kafka and PostgreSQL.
================================================================================
`;
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
  const serviceKeys = serviceKeyEnvironment(stateDir, SERVICES.map(({ name }) => name));
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
