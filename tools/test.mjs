#!/usr/bin/env node
/**
 * The test command (npm test): runs the static checks (types, lint with module boundaries),
 * builds dist/ once (services and tools run from it), starts a fresh local Kafka broker and
 * PostgreSQL server (unless KAFKA_BROKERS and TEST_PG_ADMIN_URL point at running ones), runs
 * every jest project against the real infrastructure, stops what it started, then (in a full
 * run) the deployment checks: the compose smoke test and the Kubernetes overlays' validation,
 * and the benchmark's smoke run (`npm run bench -- --quick`, its figures printed into the log).
 * It ends with the line `tests: N passed, N failed`.
 *
 *   npm test                      everything (the deployment checks need Docker, or root to install it)
 *   npm test -- <jest args>       e.g. npm test -- --selectProjects system-e2e -t idempotency
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

import { requireSupportedNode } from './node-version.mjs';

requireSupportedNode('test');
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
if (!existsSync(join(root, 'node_modules/.bin/tsc'))) {
  // A fresh clone: say what to do instead of failing on a missing binary.
  console.error('[test] dependencies are not installed: run `npm ci` first');
  process.exit(1);
}
const jestArgs = process.argv.slice(2);
const startedAt = Date.now();
const checks = { passed: 0, failed: 0 };

function run(command, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function staticCheck(name, command, args) {
  console.log(`\n[test] ${name}`);
  const code = await run(command, args, { ...process.env, NX_DAEMON: 'false' });
  if (code === 0) checks.passed += 1;
  else {
    checks.failed += 1;
    console.log(`[test] ${name} FAILED`);
  }
}

/** The environment without this run's Kafka and PostgreSQL: the benchmark starts its own, with durable commits. */
function withoutSharedInfra() {
  const env = { ...process.env };
  delete env.KAFKA_BROKERS;
  delete env.TEST_PG_ADMIN_URL;
  return env;
}

/** Run by a full `npm test` after jest: each one command of its own, counted as one test. */
const DEPLOY_CHECKS = [
  ['Kubernetes overlays render and validate offline (npm run k8s:validate)', 'bash', [join(root, 'deploy/k8s/validate.sh')]],
  // Schemathesis on the merchant, agent and back-office descriptions with each one's credentials, the cross-tenant and cross-agent checks (docs/operations/fuzzing.md); its own system and infrastructure.
  ['fuzzing quick run (npm run fuzz -- --quick: every operation of the merchant, agent and back-office APIs, cross-tenant and cross-agent 404s)', process.execPath, [join(root, 'tools/fuzz/run.mjs'), '--quick'], withoutSharedInfra],
  ['compose smoke test (npm run compose:smoke: images, stack, walk-through, replicas killed under load, audit)', process.execPath, [join(root, 'deploy/compose/smoke.mjs')]],
  // The reliability proof's short versions (issue 23), each with its own infrastructure: faults under a mixed load, then the money audit (docs/operations/chaos.md) …
  ['chaos quick run (npm run chaos -- --quick: SIGKILLs, a broker restart, connection drops and callback faults under a mixed load; nothing lost, duplicated or phantom; the money audit)', process.execPath, [join(root, 'tools/chaos/run.mjs'), '--quick'], withoutSharedInfra],
  // … and 30 s of W5 with the soak's sampling (docs/operations/soak.md): it fails on errors, money checks or sampling, never on a 30 s slope.
  ['soak quick run (npm run soak -- --quick --minutes 0.5: memory, sockets, backends and consumer lag sampled under W5; money checks)', process.execPath, [join(root, 'bench/soak.mjs'), '--quick', '--minutes', '0.5'], withoutSharedInfra],
  // A smoke run, not a timed test: it fails when the benchmark breaks (a crash, an answer a
  // workload did not expect, a money check), never on a figure, which a busy machine moves.
  // One-second steps (--seconds 1): enough requests per step to exercise every path and check the money; figures come from `npm run bench`.
  ['benchmark smoke run (npm run bench -- --quick --seconds 1: W1–W5, end-to-end latencies, money checks; figures below)', process.execPath, [join(root, 'bench/run.mjs'), '--quick', '--seconds', '1'], withoutSharedInfra],
];

let infra = null;
let exitCode = 1;
/** Stops this run's Kafka and PostgreSQL, once, whichever path gets here first. */
async function stopInfra() {
  if (infra) await infra.stop().catch((error) => console.error(`[test] stopping infrastructure: ${error.message}`));
  infra = null;
}
try {
  const bin = (name) => join(root, 'node_modules/.bin', name);
  if (jestArgs.length === 0) {
    await staticCheck('typecheck (tsc)', bin('tsc'), ['-p', 'tsconfig.json']);
    await staticCheck('lint with module boundaries (nx graph + eslint)', 'sh', ['-c', `"${bin('nx')}" show projects > /dev/null && "${bin('eslint')}" apps libs bench tools deploy --max-warnings 0`]);
  }

  // Services and tools run from dist/: built once here, before any test spawns one.
  const buildLog = join(root, '.local/build.log');
  console.log(`\n[test] build (dist/, unchanged projects come from the Nx cache; log ${relative(root, buildLog)})`);
  const { build } = await import('./build-workspace.mjs');
  await build({ logFile: buildLog }).then(
    ({ ms }) => {
      checks.passed += 1;
      console.log(`[test] built in ${(ms / 1000).toFixed(1)} s`);
    },
    (error) => {
      checks.failed += 1;
      const tail = existsSync(buildLog) ? readFileSync(buildLog, 'utf8').trimEnd().split('\n').slice(-30).join('\n') : '';
      console.log(`${tail}\n[test] build FAILED: ${error.message}`);
    },
  );
  process.env.MP_BUILT = '1';

  if (!(process.env.KAFKA_BROKERS && process.env.TEST_PG_ADMIN_URL)) {
    console.log('\n[test] starting a fresh Kafka broker and PostgreSQL server for this run');
    const { startInfra } = await import('../deploy/local/infra.mjs');
    infra = await startInfra({ mode: 'test' });
    process.env.KAFKA_BROKERS = infra.kafka.brokers;
    process.env.TEST_PG_ADMIN_URL = infra.postgres.adminUrl;
  }

  // One file per run: two test runs on one machine must not read each other's results.
  const resultsFile = join(root, `.local/jest-results-${process.pid}.json`);
  mkdirSync(dirname(resultsFile), { recursive: true });
  rmSync(resultsFile, { force: true });
  console.log('\n[test] jest (unit, integration and end-to-end)');
  // Two test files at a time: an end-to-end file spends most of its time waiting on its system
  // (the six services use about half a core between them), so two at once keep both cores busy.
  // Each file has its own databases, topics and (see freePort) ports. MP_TEST_WORKERS=1 runs one at a time.
  // A worker keeps what each file loaded (Nest, TypeORM, the compiled OpenAPI validators), and one
  // reached V8's 4 GB heap limit after a dozen end-to-end files: a worker above 1 GB after a file
  // is replaced by a fresh one (--workerIdleMemoryLimit); each file's heap is in the log (--logHeapUsage).
  const workers = process.env.MP_TEST_WORKERS ?? '2';
  const jestCode = await run(
    process.execPath,
    [join(root, 'node_modules/jest/bin/jest.js'), `--maxWorkers=${workers}`, '--workerIdleMemoryLimit=1GB', '--logHeapUsage', '--json', `--outputFile=${resultsFile}`, ...jestArgs],
    { ...process.env, MP_TEST_WORKERS: workers },
  );

  let passed = checks.passed;
  let failed = checks.failed;
  if (existsSync(resultsFile)) {
    const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
    rmSync(resultsFile, { force: true });
    passed += results.numPassedTests;
    // A suite that could not run (syntax error, failed beforeAll) counts as a failure too.
    failed += results.numFailedTests + results.numRuntimeErrorTestSuites;
    if (results.numTotalTests === 0) failed += 1;
  } else {
    failed += 1;
  }
  if (jestCode !== 0 && failed === 0) failed += 1;

  // The deployment checks run the containers and manifests of issue 19 (docs/operations/): after
  // jest, with this run's Kafka and PostgreSQL stopped, so the compose stack has the machine.
  if (jestArgs.length === 0) {
    await stopInfra();
    const deployChecks = { passed: 0, failed: 0 };
    for (const [name, command, args, env] of DEPLOY_CHECKS) {
      console.log(`\n[test] ${name}`);
      const checkStartedAt = Date.now();
      const code = await run(command, args, env ? env() : process.env);
      deployChecks[code === 0 ? 'passed' : 'failed'] += 1;
      console.log(`[test] ${name} ${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - checkStartedAt) / 1000).toFixed(1)} s`);
    }
    passed += deployChecks.passed;
    failed += deployChecks.failed;
  }
  // Stopped before the closing line, so that nothing is printed after it.
  await stopInfra();
  console.log(`\n[test] finished in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  console.log(`tests: ${passed} passed, ${failed} failed`);
  exitCode = failed === 0 ? 0 : 1;
} catch (error) {
  console.error(`[test] could not run the tests: ${error instanceof Error ? error.message : error}`);
  await stopInfra();
  console.log('tests: 0 passed, 1 failed');
}
process.exit(exitCode);
