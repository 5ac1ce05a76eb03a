#!/usr/bin/env node
/**
 * `node bench/rate-limit-cost.mjs [--requests 3000] [--merchants 50]`: what the gateway's rate
 * limit costs per request (issue 20). Takes tokens through the real store (RateLimitStore from
 * dist/) against a scratch database on TEST_PG_ADMIN_URL's server, with the real migration, one
 * statement at a time as one request would, and prints per request: the Node.js CPU-ms (the
 * gateway's share: building the query, the driver, parsing the answer), the PostgreSQL backend's
 * CPU-ms (read from /proc, so only when the server runs on this machine) and the wall time. Then
 * the same with 8 requests of one merchant at once (they queue on the bucket's row lock).
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
const { GatewayRateLimitBuckets1700000020000 } = require(builtEntry('libs/gateway/api/src/rate-limit/rate-limit.migration.ts'));
const { Client, Pool } = require('pg');

const database = `rlbench_${randomBytes(4).toString('hex')}`;
const admin = new Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const url = new URL(adminUrl);
url.pathname = `/${database}`;
const pool = new Pool({ connectionString: url.toString(), max: 8 });
// RateLimitStore needs only DataSource.query; the pool answers it as TypeORM would (rows).
const dataSource = { query: async (sql, parameters) => (await pool.query(sql, parameters)).rows };

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
  await new GatewayRateLimitBuckets1700000020000().up({ query: (sql) => dataSource.query(sql) });
  const store = new RateLimitStore(dataSource);
  const policy = { ratePerSecond: 1_000_000, burst: 1_000_000 };
  for (let index = 0; index < 300; index += 1) await store.take(`merchant:m${index % merchants}`, policy);

  const measure = async (label, run) => {
    const backendBefore = await backendCpuMs();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await run();
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const backendAfter = await backendCpuMs();
    const backend = backendBefore === null || backendAfter === null ? 'n/a (server not local)' : ((backendAfter - backendBefore) / requests).toFixed(3);
    console.log(`| ${label} | ${((cpu.user + cpu.system) / 1000 / requests).toFixed(3)} | ${backend} | ${(wallMs / requests).toFixed(3)} |`);
  };
  console.log(`\n### Rate-limit cost per request (${requests} requests, ${merchants} merchants)\n`);
  console.log('| Case | Node CPU-ms | PostgreSQL CPU-ms | wall ms |');
  console.log('|---|---|---|---|');
  await measure('one request at a time, spread merchants', async () => {
    for (let index = 0; index < requests; index += 1) await store.take(`merchant:m${index % merchants}`, policy);
  });
  await measure('8 at once, one merchant (row lock)', async () => {
    for (let index = 0; index < requests; index += 8) await Promise.all(Array.from({ length: 8 }, () => store.take('merchant:hot', policy)));
  });
} finally {
  await pool.end();
  await admin.query(`DROP DATABASE ${database}`);
  await admin.end();
}
