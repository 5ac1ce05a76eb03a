#!/usr/bin/env node
/**
 * `npm run soak [-- --quick | --minutes N --rate R --sample-seconds S]`: the soak run (issue 23,
 * docs/operations/soak.md). Builds the workspace, starts a private Kafka broker and PostgreSQL
 * server (deploy/local/infra.mjs, test mode), runs bench/src/soak.ts against them in a child
 * process and stops them again, whatever happened. With KAFKA_BROKERS and TEST_PG_ADMIN_URL set,
 * it uses those instead, and says in its report that the figures come from shared servers.
 */
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, builtEntry } from '../tools/build-workspace.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const startedAt = Date.now();
const say = (line) => console.log(`[soak] ${line}`);
say(`building (Nx, cached; log in ${join(root, '.local/build.log')})`);
try {
  await build({ logFile: join(root, '.local/build.log') });
} catch (error) {
  console.error(`[soak] ${error.message}`);
  process.exit(1);
}
const env = { ...process.env };
let infra = null;
if (!(env.KAFKA_BROKERS && env.TEST_PG_ADMIN_URL)) {
  const { startInfra } = await import('../deploy/local/infra.mjs');
  say('starting a private Kafka broker and PostgreSQL server');
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
  const child = spawn(process.execPath, ['--enable-source-maps', builtEntry('bench/src/soak.ts'), ...process.argv.slice(2)], {
    cwd: root,
    env,
    stdio: 'inherit',
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  code = await new Promise((resolve) => child.on('exit', (exitCode, signal) => resolve(exitCode ?? (signal ? 1 : 0))));
} finally {
  if (infra) await infra.stop().catch((error) => console.error(`[soak] stopping the infrastructure: ${error.message}`));
}
say(`${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - startedAt) / 1000).toFixed(0)} s wall`);
process.exit(code);
