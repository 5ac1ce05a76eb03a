#!/usr/bin/env node
/**
 * `node bench/rate-limit-cost.mjs [--requests 3000] [--merchants 50]`: what the gateway's rate
 * limit costs per request (issues 20 and 21). Takes tokens through the real code (BucketLeases
 * over RateLimitStore, from dist/) against a scratch database on TEST_PG_ADMIN_URL's server, with
 * the real migrations, as requests would, and prints per request: the Node.js CPU-ms (the
 * gateway's share: the lease bookkeeping, building the query, the driver, parsing the answer),
 * the PostgreSQL backend's CPU-ms (read from /proc, so only when the server runs on this
 * machine), the statements sent (each one a write transaction) and the wall time. Each case runs
 * twice in one process: a statement per request for one token (issue 20's cost), then the
 * gateway's leases (issue 21). First one request at a time spread over merchants at the default
 * figures (100/s, burst 200: a lease of 10), then 8 requests of one hot merchant at once (they
 * queue on the bucket's row lock) under a large override (a lease of 100).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { build, builtEntry } from '../tools/build-workspace.mjs';

const require = createRequire(import.meta.url);
const { values } = parseArgs({ options: { requests: { type: 'string', default: '3000' }, merchants: { type: 'string', default: '50' } } });
const requests = Number(values.requests);
const merchants = Number(values.merchants);
const adminUrl = process.env.TEST_PG_ADMIN_URL;
if (!adminUrl) throw new Error('TEST_PG_ADMIN_URL is required (a PostgreSQL server this benchmark may create a scratch database on)');

await build({ projects: ['gateway-api'] });
const { RateLimitStore } = require(builtEntry('libs/gateway/api/src/rate-limit/rate-limit.store.ts'));
const { BucketLeases, LEASE_SIZING, leaseSizeOf } = require(builtEntry('libs/gateway/api/src/rate-limit/bucket-lease.ts'));
const { GatewayRateLimitLeases1700000021000 } = require(builtEntry('libs/gateway/api/src/rate-limit/rate-limit-lease.migration.ts'));
const { GatewayRateLimitBuckets1700000020000 } = require(builtEntry('libs/gateway/api/src/rate-limit/rate-limit.migration.ts'));
const { Client, Pool } = require('pg');

const database = `rlbench_${randomBytes(4).toString('hex')}`;
const admin = new Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const url = new URL(adminUrl);
url.pathname = `/${database}`;
const pool = new Pool({ connectionString: url.toString(), max: 8 });
// RateLimitStore needs only DataSource.query; the pool answers it as TypeORM would (rows), counting the statements.
let statements = 0;
const dataSource = {
  query: async (sql, parameters) => {
    statements += 1;
    return (await pool.query(sql, parameters)).rows;
  },
};

const backendCpuMs = async () => {
  const pids = (await pool.query('SELECT pid FROM pg_stat_activity WHERE datname = current_database()')).rows.map((row) => row.pid);
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      return null;
    }
  }
  return ticks * 10;
};

try {
  const migrator = { query: (sql) => pool.query(sql) };
  await new GatewayRateLimitBuckets1700000020000().up(migrator);
  await new GatewayRateLimitLeases1700000021000().up(migrator);
  const store = new RateLimitStore(dataSource);
  const perRequest = { fraction: 0, max: 1 };
  const spread = { ratePerSecond: 100, burst: 200 };
  const hot = { ratePerSecond: 100_000, burst: 100_000 };
  // Issue 20's way: every request sends its own statement for one token (no lease, no joining).
  const statementPerRequest = { take: async (key, policy) => ({ allowed: (await store.lease(key, policy, 1, perRequest)).granted === 1 }) };
  // Warm-up: connections open, plans cached.
  const warm = statementPerRequest;
  for (let index = 0; index < 300; index += 1) await warm.take(`warm:m${index % merchants}`, spread);

  const measure = async (label, run) => {
    const statementsBefore = statements;
    const backendBefore = await backendCpuMs();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    const admitted = await run();
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const statementsSent = statements - statementsBefore;
    const backendAfter = await backendCpuMs();
    const backend = backendBefore === null || backendAfter === null ? 'n/a (server not local)' : ((backendAfter - backendBefore) / requests).toFixed(3);
    console.log(
      `| ${label} | ${((cpu.user + cpu.system) / 1000 / requests).toFixed(3)} | ${backend} | ${(statementsSent / requests).toFixed(3)} | ${(wallMs / requests).toFixed(3)} | ${admitted}/${requests} |`,
    );
  };
  const oneAtATime = (leases, prefix) => async () => {
    let admitted = 0;
    for (let index = 0; index < requests; index += 1) if ((await leases.take(`${prefix}:m${index % merchants}`, spread)).allowed) admitted += 1;
    return admitted;
  };
  const eightAtOnce = (leases, key) => async () => {
    let admitted = 0;
    for (let index = 0; index < requests; index += 8)
      admitted += (await Promise.all(Array.from({ length: 8 }, () => leases.take(key, hot)))).filter((answer) => answer.allowed).length;
    return admitted;
  };
  console.log(`\n### Rate-limit cost per request (${requests} requests, ${merchants} merchants)\n`);
  console.log('| Case | Node CPU-ms | PostgreSQL CPU-ms | statements | wall ms | admitted |');
  console.log('|---|---|---|---|---|---|');
  await measure('one at a time, spread merchants, a statement per request (issue 20)', oneAtATime(statementPerRequest, 'single'));
  await measure(`one at a time, spread merchants, leases of ${leaseSizeOf(spread)}`, oneAtATime(new BucketLeases(store), 'leased'));
  await measure('8 at once, one merchant (row lock), a statement per request (issue 20)', eightAtOnce(statementPerRequest, 'merchant:hot-single'));
  await measure(`8 at once, one merchant (row lock), leases of ${leaseSizeOf(hot, LEASE_SIZING)}`, eightAtOnce(new BucketLeases(store), 'merchant:hot-leased'));
} finally {
  await pool.end();
  await admin.query(`DROP DATABASE ${database}`);
  await admin.end();
}
