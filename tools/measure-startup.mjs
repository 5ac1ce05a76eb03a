#!/usr/bin/env node
/**
 * How long a service takes from spawn to answering GET /health, for comparing ways of running
 * it (built JavaScript against a TypeScript loader). Uses the Kafka broker and PostgreSQL
 * server of KAFKA_BROKERS and TEST_PG_ADMIN_URL, a database (dropped at the end) and a topic
 * namespace of its own.
 *
 *   node tools/measure-startup.mjs [--runs 5] -- node dist/apps/ledger/src/main.js
 *
 * Prints each run and the median. The service must be the ledger (the only one that starts
 * with nothing else running).
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { ensureDatabases, freePorts } from '../deploy/local/infra.mjs';
import { parseCommandLine } from './cli-arguments.mjs';

const USAGE = 'usage: KAFKA_BROKERS=… TEST_PG_ADMIN_URL=… node tools/measure-startup.mjs [--runs N] -- <command…>';
const { values, positionals } = parseCommandLine({ options: { runs: { type: 'string', default: '5' } }, allowPositionals: true }, USAGE);
const runs = Number(values.runs);
// The command comes after `--`, so its own flags are not ours.
if (
  !process.argv.includes('--') ||
  positionals.length === 0 ||
  !Number.isInteger(runs) ||
  runs < 1 ||
  !process.env.KAFKA_BROKERS ||
  !process.env.TEST_PG_ADMIN_URL
) {
  console.error(USAGE);
  process.exit(2);
}
const [command, ...args] = positionals;
const runId = `startup${randomBytes(3).toString('hex')}`;
const database = new URL(process.env.TEST_PG_ADMIN_URL);
database.pathname = `/${runId}_ledger`;
await ensureDatabases(process.env.TEST_PG_ADMIN_URL, [`${runId}_ledger`]);

async function once() {
  const [port] = await freePorts(1);
  const startedAt = process.hrtime.bigint();
  const child = spawn(command, args, {
    stdio: 'ignore',
    env: { ...process.env, KAFKA_NAMESPACE: runId, LEDGER_HTTP_PORT: String(port), LEDGER_DATABASE_URL: database.toString() },
  });
  let exited = false;
  child.on('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error('the service exited before it was healthy');
    const healthy = await fetch(`http://127.0.0.1:${port}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const ms = Number(process.hrtime.bigint() - startedAt) / 1e6;
  child.kill('SIGTERM');
  await new Promise((resolve) => (exited ? resolve() : child.on('exit', resolve)));
  return ms;
}

const timings = [];
for (let run = 1; run <= runs; run += 1) {
  const ms = await once();
  timings.push(ms);
  console.log(`run ${run}: ${ms.toFixed(0)} ms to healthy`);
}
const admin = new pg.Client({ connectionString: process.env.TEST_PG_ADMIN_URL });
await admin.connect();
await admin.query(`DROP DATABASE "${runId}_ledger"`);
await admin.end();
timings.sort((a, b) => a - b);
console.log(`median of ${runs}: ${timings[Math.floor(runs / 2)].toFixed(0)} ms (${[command, ...args].join(' ')})`);
