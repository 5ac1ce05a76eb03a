// Run directories: a fresh one per test-mode start, the persistent dev one, and reaping what crashed runs left.
// Part of deploy/local/infra.mjs, which is the entry point (API and CLI).

import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DEV_DIR, KAFKA_STOP_GRACE_MS, PG_STOP_TIMEOUT_S, REPO_ROOT, TEST_RUNS_DIR } from './constants.mjs';
import { defaultLog, relative } from './util.mjs';
import { isAlive, isOurProcess, killProcessesMentioning, readPid, terminate } from './processes.mjs';

////////// Run directories

/** YYYYMMDDTHHMMSSmmm in UTC: sorts by time and is safe in file names. */
function timestamp() {
  return new Date().toISOString().replace(/[-:.Z]/g, '');
}

const TEST_RUN_NAME = /^\d{8}T\d{9}-(\d+)(?:-\d+)?$/;

/** <tmp>/payments-local-<hash of repo path>: where PG goes when the repo is not traversable. */
export function tmpFallbackDir() {
  const hash = crypto.createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 8);
  return path.join(os.tmpdir(), `payments-local-${hash}`);
}

/**
 * A mode, a log function and the base directory the components share. In test mode the base is a
 * fresh <repo>/.local/test-runs/<timestamp>-<pid>; startInfra creates one context for both.
 */
export async function createContext(options = {}) {
  const mode = options.mode ?? 'dev';
  if (mode !== 'dev' && mode !== 'test') throw new Error(`mode must be 'dev' or 'test', got ${JSON.stringify(mode)}`);
  const log = options.log ?? defaultLog;
  const verbose = Boolean(options.verbose ?? process.env.INFRA_VERBOSE);
  if (mode === 'dev') {
    await fsp.mkdir(DEV_DIR, { recursive: true });
    return {
      mode,
      log,
      verbose,
      test: false,
      runDir: DEV_DIR,
      runId: 'dev',
      security: options.kafkaSecurity ?? null,
      kafkaProxiedListener: options.kafkaProxiedListener ?? null,
      statementStats: false,
    };
  }
  await reapStaleTestRuns(log);
  await fsp.mkdir(TEST_RUNS_DIR, { recursive: true });
  const base = `${timestamp()}-${process.pid}`;
  for (let attempt = 1; ; attempt += 1) {
    const runId = attempt === 1 ? base : `${base}-${attempt}`;
    const runDir = path.join(TEST_RUNS_DIR, runId);
    try {
      await fsp.mkdir(runDir);
      return {
        mode,
        log,
        verbose,
        test: true,
        runDir,
        runId,
        security: options.kafkaSecurity ?? null,
        kafkaProxiedListener: options.kafkaProxiedListener ?? null,
        statementStats: Boolean(options.statementStats),
      };
    } catch (error) {
      if (error.code !== 'EEXIST' || attempt >= 100) throw error;
    }
  }
}

/**
 * Removes test-run dirs whose owner process is gone, stopping anything still running in them
 * first. Dirs of live owners are kept: they belong to a test run going on in parallel.
 */
export async function reapStaleTestRuns(log) {
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
export async function removeComponentDir(dir) {
  await fsp.rm(dir, { recursive: true, force: true });
  await fsp.rmdir(path.dirname(dir)).catch(() => {});
}

/**
 * Stops whatever process a component dir's pid file names, without any state from the process
 * that started it. Used by `down`, the test-run reaper and the watchdog. True if it stopped one.
 */
export async function stopComponent({ kind, dir }, log) {
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
