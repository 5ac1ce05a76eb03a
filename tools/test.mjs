#!/usr/bin/env node
/**
 * The test command, in tiers (docs/testing.md). Each tier is a jest run over one file suffix
 * (jest.preset.ts, MP_TEST_TIER) or the deployment checks, and each command ends with the line
 * `tests: N passed, N failed`:
 *
 *   npm run test:unit     the plain `*.spec.ts`: no build, no Kafka, no PostgreSQL
 *   npm run test:int      the `*.int.spec.ts` on a fresh Kafka broker and PostgreSQL server (no build)
 *   npm run test:e2e      the `*.e2e.spec.ts`: builds dist/ (services and tools run from it), then the same
 *   npm run test:deploy   the deployment checks: k8s validation, fuzzing, compose smoke, chaos, soak, bench smoke
 *   npm test              the static checks (types, lint with module boundaries), then every tier in
 *                         that order, with ONE closing line summing them (what .ci/run runs)
 *   npm test -- <jest args>           a subset of every jest tier, e.g. npm test -- --selectProjects system-e2e -t idempotency
 *   npm run test:unit -- <jest args>  a subset of one tier (not test:deploy)
 *
 * Kafka and PostgreSQL are fresh for the run unless KAFKA_BROKERS and TEST_PG_ADMIN_URL point
 * at running ones; the deployment checks need Docker, or root to install it.
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
const JEST_TIERS = ['unit', 'int', 'e2e'];
const TIERS = [...JEST_TIERS, 'deploy'];
/** `--tier <name>` (or `--tier=<name>`) first; everything after it goes to jest. */
function parseTier(args) {
  const [first, second, ...rest] = args;
  if (first === '--tier') return { tier: second, jestArgs: rest };
  if (first?.startsWith('--tier=')) return { tier: first.slice('--tier='.length), jestArgs: [second, ...rest].filter((arg) => arg !== undefined) };
  return { tier: undefined, jestArgs: args };
}
const { tier, jestArgs } = parseTier(process.argv.slice(2));
if (tier !== undefined && !TIERS.includes(tier)) {
  console.error(`[test] unknown tier ${tier}: expected one of ${TIERS.join(', ')}`);
  process.exit(2);
}
if (tier === 'deploy' && jestArgs.length > 0) {
  console.error(`[test] the deploy tier takes no arguments (got ${jestArgs.join(' ')})`);
  process.exit(2);
}
/** A full run: static checks, then every tier. */
const everything = tier === undefined && jestArgs.length === 0;
const startedAt = Date.now();
/** Every tier and check of this run adds its counts here: the closing line prints their sums. */
const totals = { passed: 0, failed: 0 };
/** What failed, named again just before the closing line: a long run's log is often read from its end only. */
const failures = [];

function run(command, args, env = process.env) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd: root, env, stdio: 'inherit' });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

async function staticCheck(name, command, args) {
  console.log(`\n[test] ${name}`);
  const code = await run(command, args, { ...process.env, NX_DAEMON: 'false' });
  if (code === 0) totals.passed += 1;
  else {
    totals.failed += 1;
    failures.push(name);
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

/** The deploy tier (`npm run test:deploy`, and last in a full `npm test`): each one command of its own, counted as one test. */
const DEPLOY_CHECKS = [
  ['Kubernetes overlays render and validate offline (npm run k8s:validate)', 'bash', [join(root, 'deploy/k8s/validate.sh')]],
  // Schemathesis on the merchant, agent and back-office descriptions with each one's credentials, the cross-tenant and cross-agent checks (docs/operations/fuzzing.md); its own system and infrastructure.
  [
    'fuzzing quick run (npm run fuzz -- --quick: every operation of the merchant, agent and back-office APIs, cross-tenant and cross-agent 404s)',
    process.execPath,
    [join(root, 'tools/fuzz/run.mjs'), '--quick'],
    withoutSharedInfra,
  ],
  [
    'compose smoke test (npm run compose:smoke: images, stack, walk-through, replicas killed then a load on the survivors, audit)',
    process.execPath,
    [join(root, 'deploy/compose/smoke.mjs')],
  ],
  // The reliability proof's short versions (issue 23), each with its own infrastructure: faults under a mixed load, then the money audit (docs/operations/chaos.md) …
  [
    'chaos quick run (npm run chaos -- --quick: SIGKILLs, a broker restart, connection drops and callback faults under a mixed load; nothing lost, duplicated or phantom; the money audit)',
    process.execPath,
    [join(root, 'tools/chaos/run.mjs'), '--quick'],
    withoutSharedInfra,
  ],
  // … and 30 s of W5 with the soak's sampling (docs/operations/soak.md): it fails on errors, money checks or sampling, never on a 30 s slope.
  [
    'soak quick run (npm run soak -- --quick --minutes 0.5: memory, sockets, backends and consumer lag sampled under W5; money checks)',
    process.execPath,
    [join(root, 'bench/soak.mjs'), '--quick', '--minutes', '0.5'],
    withoutSharedInfra,
  ],
  // A smoke run, not a timed test: it fails when the benchmark breaks (a crash, an answer a
  // workload did not expect, a money check), never on a figure, which a busy machine moves.
  // One-second steps (--seconds 1): enough requests per step to exercise every path and check the money; figures come from `npm run bench`.
  [
    'benchmark smoke run (npm run bench -- --quick --seconds 1: W1–W5, end-to-end latencies, money checks; figures below)',
    process.execPath,
    [join(root, 'bench/run.mjs'), '--quick', '--seconds', '1'],
    withoutSharedInfra,
  ],
];

let infra = null;
let exitCode = 1;
/** Stops this run's Kafka and PostgreSQL, once, whichever path gets here first. */
async function stopInfra() {
  if (infra) await infra.stop().catch((error) => console.error(`[test] stopping infrastructure: ${error.message}`));
  infra = null;
}

/** This run's Kafka and PostgreSQL: started once, for the first tier that needs them. */
async function ensureInfra() {
  if (process.env.KAFKA_BROKERS && process.env.TEST_PG_ADMIN_URL) return;
  console.log('\n[test] starting a fresh Kafka broker and PostgreSQL server for this run');
  const { startInfra } = await import('../deploy/local/infra.mjs');
  infra = await startInfra({ mode: 'test' });
  process.env.KAFKA_BROKERS = infra.kafka.brokers;
  process.env.TEST_PG_ADMIN_URL = infra.postgres.adminUrl;
}

let built = false;
/** dist/ (services and tools run from it), built once, before the first tier that runs built code. */
async function ensureBuilt() {
  if (built) return;
  built = true;
  const buildLog = join(root, '.local/build.log');
  console.log(`\n[test] build (dist/, unchanged projects come from the Nx cache; log ${relative(root, buildLog)})`);
  const { build } = await import('./build-workspace.mjs');
  await build({ logFile: buildLog }).then(
    ({ ms }) => {
      totals.passed += 1;
      console.log(`[test] built in ${(ms / 1000).toFixed(1)} s`);
    },
    (error) => {
      totals.failed += 1;
      failures.push('build');
      const tail = existsSync(buildLog) ? readFileSync(buildLog, 'utf8').trimEnd().split('\n').slice(-30).join('\n') : '';
      console.log(`${tail}\n[test] build FAILED: ${error.message}`);
    },
  );
  // What jest's global setup and the deployment checks read: built already.
  process.env.MP_BUILT = '1';
}

/** A jest message's first line with text, without its colours. */
const firstLineOf = (message) =>
  String(message ?? '')
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .find((line) => line.trim())
    ?.trim();

/**
 * One jest run: `jestTier` selects the file suffix (jest.preset.ts), none selects every tier.
 * Adds its passed and failed tests to the totals.
 */
async function runJest(jestTier, args) {
  const tierStartedAt = Date.now();
  // One file per run: two test runs on one machine must not read each other's results.
  const resultsFile = join(root, `.local/jest-results-${process.pid}-${jestTier ?? 'all'}.json`);
  mkdirSync(dirname(resultsFile), { recursive: true });
  rmSync(resultsFile, { force: true });
  console.log(`\n[test] jest: ${jestTier ? `the ${jestTier} tier` : 'every tier'}${args.length > 0 ? ` (${args.join(' ')})` : ''}`);
  // Two test files at a time: an end-to-end file spends most of its time waiting on its system
  // (the six services use about half a core between them), so two at once keep both cores busy.
  // Each file has its own databases, topics and (see freePort) ports. MP_TEST_WORKERS=1 runs one at a time.
  // A worker keeps what each file loaded (Nest, TypeORM, the compiled OpenAPI validators), and one
  // reached V8's 4 GB heap limit after a dozen end-to-end files: a worker above 1 GB after a file
  // is replaced by a fresh one (--workerIdleMemoryLimit); each file's heap is in the log (--logHeapUsage).
  const workers = process.env.MP_TEST_WORKERS ?? '2';
  const env = { ...process.env, MP_TEST_WORKERS: workers };
  if (jestTier) env.MP_TEST_TIER = jestTier;
  else delete env.MP_TEST_TIER;
  const jestCode = await run(
    process.execPath,
    [
      join(root, 'node_modules/jest/bin/jest.js'),
      `--maxWorkers=${workers}`,
      '--workerIdleMemoryLimit=1GB',
      '--logHeapUsage',
      '--json',
      `--outputFile=${resultsFile}`,
      ...args,
    ],
    env,
  );

  let passed = 0;
  let failed = 0;
  if (existsSync(resultsFile)) {
    const results = JSON.parse(readFileSync(resultsFile, 'utf8'));
    rmSync(resultsFile, { force: true });
    passed += results.numPassedTests;
    // A suite that could not run (syntax error, failed beforeAll) counts as a failure too.
    failed += results.numFailedTests + results.numRuntimeErrorTestSuites;
    for (const suite of results.testResults ?? []) {
      const file = relative(root, suite.name);
      const failedTests = (suite.assertionResults ?? []).filter((test) => test.status === 'failed');
      if (failedTests.length === 0 && suite.status === 'failed') failures.push(`${file}: ${firstLineOf(suite.message) ?? 'could not run'}`);
      for (const test of failedTests) failures.push(`${file} › ${test.fullName}`);
    }
    if (results.numTotalTests === 0) failed += 1;
  } else {
    failed += 1;
    failures.push(`jest ${jestTier ?? 'all tiers'}: no results file`);
  }
  if (jestCode !== 0 && failed === 0) {
    failed += 1;
    failures.push(`jest ${jestTier ?? 'all tiers'}: exited with ${jestCode}`);
  }
  totals.passed += passed;
  totals.failed += failed;
  console.log(`[test] jest ${jestTier ?? 'all tiers'}: ${passed} passed, ${failed} failed in ${((Date.now() - tierStartedAt) / 1000).toFixed(1)} s`);
}

/** The deployment checks: each one command of its own, counted as one test. */
async function runDeployChecks() {
  // They run the containers and manifests of issue 19 (docs/operations/) with this run's Kafka
  // and PostgreSQL stopped, so the compose stack has the machine.
  await stopInfra();
  for (const [name, command, args, env] of DEPLOY_CHECKS) {
    console.log(`\n[test] ${name}`);
    const checkStartedAt = Date.now();
    const code = await run(command, args, env ? env() : process.env);
    totals[code === 0 ? 'passed' : 'failed'] += 1;
    if (code !== 0) failures.push(name);
    console.log(`[test] ${name} ${code === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - checkStartedAt) / 1000).toFixed(1)} s`);
  }
}

try {
  const bin = (name) => join(root, 'node_modules/.bin', name);
  if (everything) {
    await staticCheck('typecheck (tsc)', bin('tsc'), ['-p', 'tsconfig.json']);
    await staticCheck('lint with module boundaries (nx graph + eslint)', 'sh', [
      '-c',
      `"${bin('nx')}" show projects > /dev/null && "${bin('eslint')}" apps libs bench tools deploy --max-warnings 0`,
    ]);
    await staticCheck('formatting (prettier --check)', bin('prettier'), [
      '--check',
      '--log-level',
      'warn',
      '{apps,libs,bench,tools,deploy}/**/*.{ts,tsx,mjs,cjs,js}',
    ]);
  }
  if (tier === undefined && !everything) {
    // A subset (`npm test -- <jest args>`): its files may be of any tier.
    await ensureBuilt();
    await ensureInfra();
    await runJest(undefined, jestArgs);
  } else {
    const tiers = everything ? TIERS : [tier];
    for (const jestTier of tiers.filter((name) => JEST_TIERS.includes(name))) {
      if (jestTier === 'e2e') await ensureBuilt();
      if (jestTier !== 'unit') await ensureInfra();
      await runJest(jestTier, jestArgs);
    }
    if (tiers.includes('deploy')) await runDeployChecks();
  }
  // Stopped before the closing line, so that nothing is printed after it.
  await stopInfra();
  console.log(`\n[test] finished in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  for (const failure of failures) console.log(`[test] failed: ${failure}`);
  console.log(`tests: ${totals.passed} passed, ${totals.failed} failed`);
  exitCode = totals.failed === 0 ? 0 : 1;
} catch (error) {
  console.error(`[test] could not run the tests: ${error instanceof Error ? error.message : error}`);
  await stopInfra();
  console.log('tests: 0 passed, 1 failed');
}
process.exit(exitCode);
