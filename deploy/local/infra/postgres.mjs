// The local PostgreSQL cluster: binaries and the user that runs them, the cluster directory, the server process, databases.
// Part of deploy/local/infra.mjs, which is the entry point (API and CLI).

import crypto from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import {
  CLI_NAME,
  DEV_DIR,
  DEV_PORTS,
  MESSAGES,
  PG_DEV_PASSWORD,
  PG_FALLBACK_SYSTEM_USER,
  PG_START_TIMEOUT_S,
  PG_STOP_TIMEOUT_S,
  PG_SUPERUSER,
  UNIX_SOCKET_DIR_MAX_LENGTH,
} from './constants.mjs';
import { exists, isRoot, once, relative, run, runChecked, seconds, systemTool, which, withLogTail } from './util.mjs';
import { isOurProcess, readPid } from './processes.mjs';
import { assertDevPortFree, freePorts } from './ports.mjs';
import { removeComponentDir, stopComponent, tmpFallbackDir } from './run-dirs.mjs';
import { watchdogRegister, watchdogRelease } from './watchdog.mjs';

////////// PostgreSQL: binaries and the user that runs them

let pgBinariesPromise;

/** { bindir, major }: pg_config's bindir when it has initdb, else the newest /usr/lib/postgresql/N. */
export function findPgBinaries() {
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
  const versions = (await fsp.readdir(root).catch(() => [])).filter((name) => /^\d+(\.\d+)?$/.test(name)).sort((a, b) => Number(b) - Number(a));
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
export function pgRunAsUser(log) {
  if (!isRoot()) return Promise.resolve(null);
  pgRunAsPromise ??= (async () => {
    const existing = (await lookupUser('postgres')) ?? (await lookupUser(PG_FALLBACK_SYSTEM_USER));
    if (existing) return existing;
    const useradd = which('useradd');
    if (!useradd)
      throw new Error(
        `running as root, PostgreSQL needs an unprivileged user, but there is no 'postgres' user and no useradd to create '${PG_FALLBACK_SYSTEM_USER}'`,
      );
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
  if (!(await userCanTraverse(user, parent)))
    throw new Error(`user ${user.name} cannot reach ${relative(ctx.runDir)} nor ${parent}; PostgreSQL needs a directory it can access`);
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
  if (ctx.statementStats) {
    // Asked for by a benchmark counting statements (bench/statements-per-payin.mjs), never by the
    // tests: top-level statements only, kept in memory, nothing written at shutdown.
    lines.push("shared_preload_libraries = 'pg_stat_statements'", 'pg_stat_statements.track = top', 'pg_stat_statements.save = off');
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
  const args = [
    '-D',
    dataDir,
    `--username=${PG_SUPERUSER}`,
    `--pwfile=${passwordFile(pgDir)}`,
    '--auth=scram-sha-256',
    '--encoding=UTF8',
    '--locale=C',
    ...(ctx.test ? ['--no-sync'] : []),
  ];
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
  if (clusterMajor !== major)
    throw new Error(`the dev cluster in ${dataDir} is PostgreSQL ${clusterMajor} but the binaries in ${bindir} are ${major}; remove ${pgDir} to start afresh`);
  // A cluster made by another user (say, an earlier non-root run) must belong to the server's user.
  if (user && (await fsp.stat(dataDir)).uid !== user.uid) await chownToUser(user, pgDir, { recursive: true });
  return devPassword(pgDir);
}

////////// PostgreSQL: server process

async function pgStart(ctx, { bindir, user, pgDir, dataDir, logFile, port }) {
  await writeOwnedFile(user, path.join(dataDir, 'infra.conf'), pgInfraConf(ctx, { port, socketDir: socketDirFor(pgDir, ctx.log) }), 0o600);
  if (!ctx.test) await fsp.rename(logFile, `${logFile}.prev`).catch(() => {});
  const result = await runAs(user, path.join(bindir, 'pg_ctl'), ['-D', dataDir, '-l', logFile, '-w', '-t', String(PG_START_TIMEOUT_S), 'start'], {
    cwd: pgDir,
  });
  if (result.code !== 0) throw await withLogTail(`pg_ctl start failed (exit ${result.code}): ${`${result.stdout}\n${result.stderr}`.trim()}`, logFile);
  // pg_ctl -w only knows the postmaster says "ready"; pg_isready proves the TCP listener answers.
  const ready = await run(path.join(bindir, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port), '-t', '10']);
  if (ready.code !== 0) throw await withLogTail(`PostgreSQL started but 127.0.0.1:${port} is not accepting connections: ${ready.stdout.trim()}`, logFile);
}

export async function pgStop({ bindir, user, pgDir, dataDir, log }) {
  // The postmaster removes its pid file on exit: without one there is nothing to stop (and the
  // dir may be gone altogether, e.g. cleaned up by the watchdog).
  if (!(await exists(path.join(dataDir, 'postmaster.pid')))) return;
  const result = await runAs(user, path.join(bindir, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', '-t', String(PG_STOP_TIMEOUT_S), 'stop'], {
    cwd: pgDir,
  }).catch((error) => ({ code: -1, stdout: '', stderr: error.message }));
  if (result.code === 0) return;
  // pg_ctl failed (timed out, or the cluster dir is damaged): fall back to signals.
  log?.(`pg_ctl stop failed (${`${result.stdout} ${result.stderr}`.trim()}); signalling the postmaster`);
  await stopComponent({ kind: 'pg', dir: pgDir }, log);
}

/** Port races in test mode show up as a bind failure in pg_ctl's error; retry on new ports. */
const isPgBindError = (error) => /could not bind|Address already in use|could not create any TCP\/IP sockets/.test(error.message);

export async function startPostgresIn(ctx) {
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
export async function runningDevPostmaster() {
  for (const pgDir of devPgDirs()) {
    const dataDir = path.join(pgDir, 'data');
    const pid = await readPid(path.join(dataDir, 'postmaster.pid'));
    if (pid && isOurProcess(pid, dataDir)) return { pid, pgDir, dataDir };
  }
  return null;
}

export async function assertDevPostgresStartable() {
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
  // A server restart (the chaos runner's fault, docs/operations/chaos.md): a fast shutdown that
  // keeps the data directory, and a start on the same port.
  const pause = () => pgStop(pg);
  const resume = () => pgStart(ctx, { ...pg, port });
  const adminUrl = `postgres://${PG_SUPERUSER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
  return { adminUrl, host: '127.0.0.1', port, user: PG_SUPERUSER, password, dataDir: pg.dataDir, logFile: pg.logFile, stop, pause, resume };
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
