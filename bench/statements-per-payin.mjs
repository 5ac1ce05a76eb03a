#!/usr/bin/env node
/**
 * `node bench/statements-per-payin.mjs [--payins 100] [--top 8]`: the SQL statements and WAL one
 * pay-in costs in each service's database (issue 21, "fewer statements and less WAL per
 * command"). Runs the real system (SystemUnderTest from dist/) on the shared Kafka broker
 * (KAFKA_BROKERS) and a private PostgreSQL server of its own, started by deploy/local/infra.mjs
 * with pg_stat_statements preloaded (`statementStats`), so nobody else's statements or WAL are
 * counted. For `--payins` pay-ins created only (W1's request) and as many taken through the
 * whole lifecycle (payer page, "I have paid", the agent's confirmation), one at a time, it prints
 * per pay-in and database:
 * - statements: top-level statements the server ran (pg_stat_statements `calls`, BEGIN and
 *   COMMIT included: each is a round trip), less what the idle system runs in the same time
 *   (pollers, measured for a few seconds before each phase);
 * - WAL: the bytes of WAL those statements wrote (pg_stat_statements `wal_bytes`), and below the
 *   table the whole server's WAL (pg_current_wal_lsn before and after: autovacuum included).
 *   The test cluster runs with full_page_writes off, so neither includes full-page images (they
 *   depend on when the last checkpoint was; bench/main.ts measures them under load);
 * - the `--top` statements of each database by calls per pay-in, to see what to combine or drop;
 * - with `--wal-by-relation`, the server's WAL of each phase split by the table or index each
 *   record changed (pg_waldump over the phase's LSN range), to see which row or index to shrink.
 */
import { execFile } from 'node:child_process';
import { createServer } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { build, builtEntry } from '../tools/build-workspace.mjs';
import { payInSteps } from './payin-steps.mjs';

const require = createRequire(import.meta.url);
const { values: options } = parseArgs({
  options: { payins: { type: 'string', default: '100' }, top: { type: 'string', default: '8' }, 'wal-by-relation': { type: 'boolean', default: false } },
});
const PAYINS = Number(options.payins);
const TOP = Number(options.top);
if (!Number.isInteger(PAYINS) || PAYINS <= 0) throw new Error(`--payins must be a positive integer, got ${options.payins}`);
if (!Number.isInteger(TOP) || TOP < 0) throw new Error(`--top must be a whole number, got ${options.top}`);
if (!process.env.KAFKA_BROKERS) throw new Error("set KAFKA_BROKERS (the shared test broker or `npm start`'s)");

await build({ logFile: '.local/build.log' });
const { Client } = require('pg');
const { startPostgres } = await import('../deploy/local/infra.mjs');
const { findPgBinaries } = await import('../deploy/local/infra/postgres.mjs');
const postgres = await startPostgres({ mode: 'test', statementStats: true, log: () => undefined });
// SystemUnderTest makes its databases on the server this names.
process.env.TEST_PG_ADMIN_URL = postgres.adminUrl;
const { SystemUnderTest, createOperator, registerAgent } = require(builtEntry('libs/shared/testing/src/index.ts'));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const IDLE_SAMPLE_MS = 4_000;
const WARM_UP_TAIL_MS = 5_000;

// The merchant's callback URL: answers 200 at once, so deliveries finish instead of retrying.
const callbackSink = createServer((request, response) => request.resume().on('end', () => response.writeHead(200).end()));
await new Promise((resolve) => callbackSink.listen(0, '127.0.0.1', resolve));
const callbackUrl = `http://127.0.0.1:${callbackSink.address().port}/callbacks`;

const admin = new Client({ connectionString: postgres.adminUrl });
await admin.connect();
await admin.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
let system;
try {
  // http:// callback URLs are a test-only allowance of the gateway (production wants https).
  system = await SystemUnderTest.start({ env: { gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true' } } });
  const databasePrefix = `${system.runId}_`;
  const merchant = await system.createClient('Statements per pay-in shop');
  const operator = await createOperator(system);
  const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  const { createPayIn, lifecycle } = payInSteps({ system, merchant, agent, orderIdPrefix: 'spp', callbackUrl: callbackUrl });

  console.log(
    `statements and WAL per pay-in, ${PAYINS} pay-ins one at a time, by service database (PostgreSQL ${(await admin.query('SHOW server_version')).rows[0].server_version}, full_page_writes ${(await admin.query('SHOW full_page_writes')).rows[0].full_page_writes})`,
  );
  for (const [label, run] of [
    ['W1: create a pay-in', createPayIn],
    ['a pay-in through to success (create, payer page, "I have paid", confirm)', lifecycle],
  ]) {
    // Warm up (first-use statements, caches), then let the system go quiet.
    for (let index = 0; index < 5; index += 1) await run();
    const idle = await idleRates(databasePrefix);
    await admin.query('SELECT pg_stat_statements_reset()');
    const walBefore = (await admin.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn;
    const startedAt = Date.now();
    for (let index = 0; index < PAYINS; index += 1) await run();
    await settle(databasePrefix, idle);
    const elapsedSeconds = (Date.now() - startedAt) / 1_000;
    const walAfter = (await admin.query('SELECT pg_current_wal_lsn() AS lsn')).rows[0].lsn;
    const serverWal = Number((await admin.query('SELECT pg_wal_lsn_diff($1, $2)::bigint AS bytes', [walAfter, walBefore])).rows[0].bytes);
    report(label, databasePrefix, await byDatabase(databasePrefix), idle, elapsedSeconds, serverWal, await topStatements(databasePrefix));
    if (options['wal-by-relation']) await reportWalByRelation(walBefore, walAfter);
  }
} finally {
  await system?.stop();
  await admin.end();
  callbackSink.close();
  await postgres.stop();
}

/** Per database of this run: statements and the WAL they wrote, since the last reset. */
async function byDatabase(prefix) {
  const { rows } = await admin.query(
    `SELECT d.datname AS database, sum(s.calls)::bigint AS calls, sum(s.wal_bytes)::bigint AS wal_bytes
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname LIKE $1 || '%' GROUP BY d.datname`,
    [prefix],
  );
  return new Map(rows.map((row) => [row.database, { calls: Number(row.calls), walBytes: Number(row.wal_bytes) }]));
}

/** What the idle system runs per second in each database (outbox relays, sweeps, pollers). */
async function idleRates(prefix) {
  // The warm-up's messages are handled well within this; pollers never go quiet, so no settle().
  await sleep(WARM_UP_TAIL_MS);
  await admin.query('SELECT pg_stat_statements_reset()');
  await sleep(IDLE_SAMPLE_MS);
  const rates = new Map();
  for (const [database, { calls, walBytes }] of await byDatabase(prefix))
    rates.set(database, { calls: calls / (IDLE_SAMPLE_MS / 1_000), walBytes: walBytes / (IDLE_SAMPLE_MS / 1_000) });
  return rates;
}

/** Waits until every database runs no more statements than when idle, for three seconds in a row. */
async function settle(prefix, idle) {
  let last = await byDatabase(prefix);
  for (let quiet = 0; quiet < 3;) {
    await sleep(1_000);
    const now = await byDatabase(prefix);
    const busy = [...now].some(([database, { calls }]) => calls - (last.get(database)?.calls ?? 0) > (idle.get(database)?.calls ?? 0) * 1.5 + 2);
    quiet = busy ? 0 : quiet + 1;
    last = now;
  }
}

async function topStatements(prefix) {
  const { rows } = await admin.query(
    `SELECT d.datname AS database, s.calls::bigint AS calls, s.wal_bytes::bigint AS wal_bytes, regexp_replace(s.query, '\\s+', ' ', 'g') AS query
       FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
      WHERE d.datname LIKE $1 || '%' ORDER BY d.datname, s.calls DESC`,
    [prefix],
  );
  return rows;
}

function report(label, prefix, measured, idle, elapsedSeconds, serverWal, statements) {
  const perPayIn = (value) => (value / PAYINS).toFixed(1);
  console.log(`\n${label}, per pay-in (${PAYINS} pay-ins in ${elapsedSeconds.toFixed(1)} s; idle statements and their WAL subtracted):\n`);
  console.log('| database | statements | WAL bytes | idle statements/s |\n|---|---:|---:|---:|');
  const total = { calls: 0, walBytes: 0 };
  for (const [database, { calls, walBytes }] of [...measured].sort(([a], [b]) => a.localeCompare(b))) {
    const rate = idle.get(database) ?? { calls: 0, walBytes: 0 };
    const own = { calls: Math.max(0, calls - rate.calls * elapsedSeconds), walBytes: Math.max(0, walBytes - rate.walBytes * elapsedSeconds) };
    total.calls += own.calls;
    total.walBytes += own.walBytes;
    console.log(`| ${database.slice(prefix.length)} | ${perPayIn(own.calls)} | ${perPayIn(own.walBytes)} | ${rate.calls.toFixed(1)} |`);
  }
  console.log(`| all | ${perPayIn(total.calls)} | ${perPayIn(total.walBytes)} | |`);
  console.log(`\nthe whole server's WAL (pg_current_wal_lsn, idle and autovacuum included): ${perPayIn(serverWal)} bytes per pay-in`);
  if (TOP === 0) return;
  console.log(`\nmost frequent statements (calls and WAL bytes per pay-in, idle not subtracted):`);
  for (const database of [...new Set(statements.map((row) => row.database))]) {
    console.log(`\n  ${database.slice(prefix.length)}`);
    for (const row of statements.filter((candidate) => candidate.database === database).slice(0, TOP)) {
      console.log(`  ${perPayIn(Number(row.calls)).padStart(6)} ${perPayIn(Number(row.wal_bytes)).padStart(8)} B  ${row.query.slice(0, 150)}`);
    }
  }
}

/**
 * The WAL between two LSNs by the relation each record changed: pg_waldump's records summed by
 * their first block reference, named through pg_filenode_relation in that record's database.
 * Records without a block (commits, running-transaction snapshots) are summed by their kind.
 */
async function reportWalByRelation(fromLsn, toLsn) {
  const { bindir } = await findPgBinaries();
  const waldump = bindir ? path.join(bindir, 'pg_waldump') : 'pg_waldump';
  const { stdout } = await promisify(execFile)(waldump, ['--path', path.join(postgres.dataDir, 'pg_wal'), '--start', fromLsn, '--end', toLsn], {
    maxBuffer: 1 << 30,
  });
  const bytesByKey = new Map();
  for (const line of stdout.split('\n')) {
    const record = /^rmgr: (\S+)\s+len \(rec\/tot\):\s*\d+\/\s*(\d+),.*?desc: (\S+)/.exec(line);
    if (!record) continue;
    const block = / rel (\d+)\/(\d+)\/(\d+)/.exec(line);
    const key = block ? `${block[2]}/${block[3]}` : `(${record[1]} ${record[3]})`;
    bytesByKey.set(key, (bytesByKey.get(key) ?? 0) + Number(record[2]));
  }
  const databaseNames = new Map((await admin.query('SELECT oid::text, datname FROM pg_database')).rows.map((row) => [row.oid, row.datname]));
  // One connection and one lookup per database, for all the file nodes its records named.
  const fileNodesByDatabase = new Map();
  for (const key of bytesByKey.keys()) {
    const [databaseOid, fileNode] = key.split('/');
    if (fileNode === undefined || !databaseNames.has(databaseOid)) continue;
    if (!fileNodesByDatabase.has(databaseOid)) fileNodesByDatabase.set(databaseOid, []);
    fileNodesByDatabase.get(databaseOid).push(fileNode);
  }
  const relationNames = new Map();
  for (const [databaseOid, fileNodes] of fileNodesByDatabase) {
    const database = databaseNames.get(databaseOid);
    for (const [fileNode, name] of await relationsOf(database, fileNodes))
      relationNames.set(`${databaseOid}/${fileNode}`, `${database.replace(/^.*_/, '')}.${name ?? `filenode ${fileNode}`}`);
  }
  const named = new Map();
  for (const [key, bytes] of bytesByKey) {
    const relation = relationNames.get(key) ?? key;
    named.set(relation, (named.get(relation) ?? 0) + bytes);
  }
  console.log(`\nthe server's WAL by relation, per pay-in (pg_waldump ${fromLsn} → ${toLsn}):\n`);
  for (const [relation, bytes] of [...named].sort(([, a], [, b]) => b - a).slice(0, 25)) {
    console.log(`  ${(bytes / PAYINS).toFixed(1).padStart(9)} B  ${relation}`);
  }
}

/** The relation names of file nodes in one database (pg_filenode_relation), by file node; null for one it no longer has. */
async function relationsOf(database, fileNodes) {
  const client = new Client({ connectionString: postgres.adminUrl.replace(/\/postgres$/, `/${database}`) });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT node::text, pg_filenode_relation(0, node)::text AS name FROM unnest($1::oid[]) AS node', [fileNodes]);
    return new Map(rows.map((row) => [row.node, row.name]));
  } finally {
    await client.end();
  }
}
