#!/usr/bin/env node
/**
 * `npm run bench [-- --quick]`: starts a private Kafka broker and PostgreSQL cluster on free
 * loopback ports (deploy/local/infra.mjs, test mode), builds the workspace (the services, the
 * yardstick and the benchmark itself run from dist/, see tools/build.mjs), runs the benchmark
 * (bench/src/main.ts) against them in a child process and stops them again, whatever happened.
 *
 * With KAFKA_BROKERS and TEST_PG_ADMIN_URL set, it uses those instead (for developing the
 * harness on shared infrastructure; the figures are then not comparable: the PostgreSQL
 * settings are whatever that server has, and others' work shows in its CPU).
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, builtEntry } from '../tools/build-workspace.mjs';
import { KAFKA_VERSION } from '../deploy/local/infra/constants.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const buildLog = join(root, '.local/build.log');
console.log(`[bench] building (Nx, cached; log in ${buildLog})`);
try {
  await build({ logFile: buildLog });
} catch (error) {
  console.error(`[bench] ${error.message}`);
  process.exit(1);
}
let infra = null;
// The broker's version for the report's header: the project's one Kafka version (deploy/local/kafka/pom.xml).
const env = { BENCH_KAFKA_VERSION: KAFKA_VERSION, ...process.env };
if (!(env.KAFKA_BROKERS && env.TEST_PG_ADMIN_URL)) {
  const { startInfra } = await import('../deploy/local/infra.mjs');
  console.log('[bench] starting a private Kafka broker and PostgreSQL server');
  infra = await startInfra({ mode: 'test' });
  Object.assign(env, {
    KAFKA_BROKERS: infra.kafka.brokers,
    TEST_PG_ADMIN_URL: infra.postgres.adminUrl,
    BENCH_OWN_INFRA: '1',
    BENCH_KAFKA_PID: String(infra.kafka.pid),
  });
}
let code = 1;
try {
  const child = spawn(process.execPath, ['--enable-source-maps', builtEntry('bench/src/main.ts'), ...args], { cwd: root, env, stdio: 'inherit' });
  const forward = (signal) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  code = await new Promise((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))));
} finally {
  if (infra) await infra.stop().catch((error) => console.error(`[bench] stopping infrastructure: ${error.message}`));
}
process.exit(code);
