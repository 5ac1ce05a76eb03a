#!/usr/bin/env node
// Local infrastructure for the merchant payments platform: a single-node Kafka 4.x broker (KRaft,
// jars from Maven Central, see deploy/local/README.md) and a private PostgreSQL
// cluster, both without Docker. Used by the test runner, the start script and by hand:
//
//   node deploy/local/infra.mjs up [--mode dev|test] [--verbose]   start both, stay in the foreground
//   node deploy/local/infra.mjs down                               stop dev processes left running
//   node deploy/local/infra.mjs secured-kafka --users a,b           a test broker in the secured configuration
//                                                                  (SASL_SSL, SCRAM users, ACLs); prints KAFKA_BROKERS and
//                                                                  KAFKA_SECURITY (JSON: CA file, passwords), stops on a signal
//
// dev mode:  persistent state in <repo>/.local/dev/{kafka,pg}, fixed ports (Kafka 127.0.0.1:19092,
//            controller 19093, Postgres 127.0.0.1:55432), superuser payments / payments-local.
// test mode: a fresh <repo>/.local/test-runs/<timestamp-pid>/ per call, free ports, random password,
//            everything removed again on stop (or by a watchdog process if this process dies).
//
// Only node built-ins are used; java, mvn and the PostgreSQL binaries are run as child processes.
//
// The parts, by concern, are in deploy/local/infra/: constants, util (commands, files), processes,
// ports, run-dirs, watchdog, kafka and postgres; this file is the API and the CLI.

import crypto from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { parseCommandLine } from '../../tools/cli-arguments.mjs';
import { CLI_NAME, DEV_DIR, INFRA_CLI_FILE } from './infra/constants.mjs';
import { defaultLog, once, relative, seconds } from './infra/util.mjs';
import { createContext, reapStaleTestRuns, stopComponent } from './infra/run-dirs.mjs';
import { watchdogMain } from './infra/watchdog.mjs';
import { assertDevKafkaStartable, startKafkaIn } from './infra/kafka.mjs';
import { assertDevPostgresStartable, findPgBinaries, pgRunAsUser, pgStop, runningDevPostmaster, startPostgresIn } from './infra/postgres.mjs';

export { freePorts } from './infra/ports.mjs';
export { ensureDatabases } from './infra/postgres.mjs';

////////// Public API

export async function startKafka(options = {}) {
  return startWithContext(options, startKafkaIn);
}

/** `statementStats: true` (test mode) preloads pg_stat_statements, for a benchmark that counts statements. */
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

const USAGE = `usage: ${CLI_NAME} up [--mode dev|test] [--verbose]\n       ${CLI_NAME} down\n       ${CLI_NAME} secured-kafka --users NAME[,NAME…]`;

function parseUpArguments(args) {
  const { values } = parseCommandLine({ args, options: { mode: { type: 'string', default: 'dev' }, verbose: { type: 'boolean', default: false } } }, USAGE);
  if (values.mode !== 'dev' && values.mode !== 'test') throw new Error(`--mode must be dev or test, got ${JSON.stringify(values.mode)}`);
  return values;
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
  return {
    get received() {
      return received;
    },
    wait: () => new Promise((resolve) => (received ? resolve(received) : (wake = resolve))),
  };
}

async function cliUp(args) {
  const { mode, verbose } = parseUpArguments(args);
  const signals = shutdownSignal(); // Installed before starting, so Ctrl-C during startup still cleans up.
  const infra = await startInfra({ mode, verbose });
  console.log(`KAFKA_BROKERS=${infra.kafka.brokers}`);
  console.log(`PG_ADMIN_URL=${infra.postgres.adminUrl}`);
  if (!signals.received) defaultLog(`${mode} infrastructure is up; press Ctrl-C to stop`);
  // The children are unref'd (so library callers never hang on them); this timer is what keeps
  // the foreground process alive until a signal arrives.
  const keepAlive = setInterval(() => {}, 1 << 30);
  const reason = await Promise.race([signals.wait().then((name) => `received ${name}`), infra.kafka.exited.then(() => 'the Kafka broker exited')]);
  clearInterval(keepAlive);
  defaultLog(`${reason}, shutting down…`);
  const startedMs = Date.now();
  await infra.stop();
  defaultLog(`stopped in ${seconds(startedMs)}`);
  return reason.startsWith('received') ? 0 : 1;
}

/**
 * A test-mode broker in the secured configuration, for the suites that prove the Kafka boundary
 * (a jest test cannot import this ES module, so it runs this as a child). Each user gets a random
 * password; they and the admin's are printed for the test, which is their only reader.
 */
async function cliSecuredKafka(args) {
  const { values } = parseCommandLine({ args, options: { users: { type: 'string', default: '' } } }, USAGE);
  const users = values.users
    .split(',')
    .map((user) => user.trim())
    .filter(Boolean);
  const password = () => crypto.randomBytes(18).toString('hex');
  const signals = shutdownSignal();
  const kafka = await startKafka({
    mode: 'test',
    kafkaSecurity: { adminPassword: password(), users: Object.fromEntries(users.map((user) => [user, password()])) },
  });
  console.log(`KAFKA_BROKERS=${kafka.brokers}`);
  console.log(`KAFKA_SECURITY=${JSON.stringify(kafka.security)}`);
  const keepAlive = setInterval(() => {}, 1 << 30);
  const reason = await Promise.race([signals.wait().then((name) => `received ${name}`), kafka.exited.then(() => 'the Kafka broker exited')]);
  clearInterval(keepAlive);
  await kafka.stop();
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
  if (command === 'secured-kafka') return cliSecuredKafka(args);
  if (command === 'down') {
    parseCommandLine({ args, options: {} }, USAGE);
    return cliDown();
  }
  if (command === '__watchdog') return watchdogMain();
  console.error(USAGE);
  return 2;
}

function isMainModule() {
  try {
    return Boolean(process.argv[1]) && fs.realpathSync(process.argv[1]) === fs.realpathSync(INFRA_CLI_FILE);
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
