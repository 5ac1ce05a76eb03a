#!/usr/bin/env node
/**
 * npm run fuzz: Schemathesis against the checked-in openapi.json, every request signed as a demo
 * merchant (hooks.py), then the cross-tenant check (cross_tenant.py) with a second merchant.
 * See docs/operations/fuzzing.md.
 *
 *   npm run fuzz                        full: 200 examples per operation, stateful links, reports/fuzz-<timestamp>.{json,md}
 *   npm run fuzz -- --quick             CI: 10 examples per operation, no reports
 *   npm run fuzz -- --seed 7 --max-examples 50 --operation getPaymentStatus
 *
 * The system: its own `npm start --mode test` (deploy/local/start.mjs) on free loopback ports.
 * With KAFKA_BROKERS and TEST_PG_ADMIN_URL set (as for the tests) it uses that Kafka and
 * PostgreSQL under a namespace and databases of its own; otherwise start.mjs starts throwaway ones.
 * Python: a virtualenv in .local/fuzz-venv with tools/fuzz/requirements.txt, made on first use.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { builtEntry, root } from '../build-workspace.mjs';
import { parseCommandLine } from '../cli-arguments.mjs';
import { ensureDatabases } from '../../deploy/local/infra.mjs';
import { masterKeyringEnvironment } from '../../deploy/local/master-keyring.mjs';
import { catalogServices } from '../../deploy/catalog/catalog.mjs';

const FULL_EXAMPLES = 200;
const QUICK_EXAMPLES = 10;
/** What the issue asks to hold the API to; each is a Schemathesis built-in check. */
const CHECKS = ['not_a_server_error', 'response_schema_conformance', 'status_code_conformance', 'content_type_conformance', 'response_headers_conformance'];
/** The fuzzer is one client sending hundreds of requests a second: the production rate limits would answer most of them 429. */
const GENEROUS_RATE_LIMITS = {
  GATEWAY_RATE_LIMIT_MERCHANT_PER_SECOND: '100000',
  GATEWAY_RATE_LIMIT_MERCHANT_BURST: '100000',
  GATEWAY_RATE_LIMIT_ADDRESS_PER_SECOND: '100000',
  GATEWAY_RATE_LIMIT_ADDRESS_BURST: '100000',
  GATEWAY_RATE_LIMIT_AUTH_FAILURES_BURST: '100000',
};

const { values: options } = parseCommandLine({
  options: {
    quick: { type: 'boolean', default: false },
    seed: { type: 'string', default: '23' },
    'max-examples': { type: 'string' },
    operation: { type: 'string', multiple: true },
  },
});
const venv = join(root, '.local/fuzz-venv');
const python = join(venv, 'bin/python');
const say = (line) => console.log(`[fuzz] ${line}`);

function ensureVirtualenv() {
  const requirements = readFileSync(join(root, 'tools/fuzz/requirements.txt'), 'utf8');
  const stamp = join(venv, 'requirements.txt');
  if (existsSync(python) && existsSync(stamp) && readFileSync(stamp, 'utf8') === requirements) return;
  say(`installing tools/fuzz/requirements.txt into ${venv} (first use)`);
  const run = (command, args) => {
    const result = spawnSync(command, args, { stdio: 'inherit' });
    if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (exit ${result.status}); Python 3.10+ with venv is needed`);
  };
  if (!existsSync(python)) run('python3', ['-m', 'venv', venv]);
  run(python, ['-m', 'pip', 'install', '--quiet', '-r', join(root, 'tools/fuzz/requirements.txt')]);
  writeFileSync(stamp, requirements);
}

/** Starts deploy/local/start.mjs in test mode and resolves with its state directory once the banner is printed. */
function startSystem() {
  const stateDir = mkdtempSync(join(tmpdir(), 'mp-fuzz-'));
  const env = { ...process.env, ...GENEROUS_RATE_LIMITS, MP_LOCAL_DIR: stateDir };
  return (async () => {
    const adminUrl = process.env.TEST_PG_ADMIN_URL;
    if (process.env.KAFKA_BROKERS && adminUrl) {
      // Shared test infrastructure: topics under a namespace and databases of this run only.
      const run = `fuzz_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
      env.KAFKA_NAMESPACE = run;
      const names = catalogServices.map(({ name }) => `${run}_${name}`);
      await ensureDatabases(adminUrl, names);
      for (const { name } of catalogServices) {
        const url = new URL(adminUrl);
        url.pathname = `/${run}_${name}`;
        env[`${name.toUpperCase().replaceAll('-', '_')}_DATABASE_URL`] = url.toString();
      }
    }
    const child = spawn(process.execPath, [join(root, 'deploy/local/start.mjs'), '--mode', 'test'], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: false });
    let output = '';
    const ready = new Promise((resolvePromise, reject) => {
      child.stdout.on('data', (chunk) => {
        output += chunk;
        if (output.includes('Merchant payments is running')) resolvePromise();
      });
      child.stderr.on('data', (chunk) => (output += chunk));
      child.on('exit', (code) => reject(new Error(`deploy/local/start.mjs exited (${code}) before it was ready:\n${output.slice(-3000)}`)));
    });
    const stop = () =>
      new Promise((resolvePromise) => {
        if (child.exitCode !== null) return resolvePromise();
        child.removeAllListeners('exit');
        child.on('exit', () => resolvePromise());
        child.kill('SIGTERM');
      }).then(() => rmSync(stateDir, { recursive: true, force: true }));
    try {
      await ready;
    } catch (error) {
      await stop();
      throw error;
    }
    return { stateDir, stop };
  })();
}

/** A second merchant in the same gateway database, for the cross-tenant check. */
function createOtherMerchant(stateDir) {
  const endpoints = JSON.parse(readFileSync(join(stateDir, 'endpoints.json'), 'utf8'));
  const env = { ...process.env, GATEWAY_DATABASE_URL: endpoints.database_urls.gateway, ...masterKeyringEnvironment(stateDir, 'MERCHANT_SECRETS') };
  const result = spawnSync(process.execPath, [builtEntry('apps/gateway/src/create-merchant.ts'), '--name', 'Fuzz other tenant', '--callback-url', 'https://other.example/callbacks', '--json'], { cwd: root, env, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`create-merchant failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

function runPython(args, env) {
  return new Promise((resolvePromise) => {
    const child = spawn(python, args, { cwd: root, env: { ...process.env, PYTHONPATH: join(root, 'tools/fuzz'), ...env }, stdio: 'inherit' });
    child.on('exit', (code) => resolvePromise(code ?? 1));
  });
}

async function main() {
  const startedAt = Date.now();
  ensureVirtualenv();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const reportBase = join(root, 'reports', `fuzz-${stamp}`);
  say('starting the system (deploy/local/start.mjs --mode test)');
  const system = await startSystem();
  let exitCode = 1;
  try {
    const merchant = JSON.parse(readFileSync(join(system.stateDir, 'demo-merchant.json'), 'utf8'));
    const other = createOtherMerchant(system.stateDir);
    say(`system ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s at ${merchant.base_url}; merchant A ${merchant.merchant_id}, merchant B ${other.merchant_id}`);
    const examples = options['max-examples'] ?? String(options.quick ? QUICK_EXAMPLES : FULL_EXAMPLES);
    const schemathesisArgs = [
      '-m', 'schemathesis.cli', 'run', join(root, 'openapi.json'),
      '--url', merchant.base_url,
      '--seed', options.seed,
      '--max-examples', examples,
      '--checks', CHECKS.join(','),
      '--workers', '1',
      '--request-timeout', '15',
      '--no-color',
      ...(options.quick ? ['--phases', 'examples,coverage,fuzzing', '--no-shrink'] : ['--report', 'json', '--report-json-path', `${reportBase}.json`]),
      ...(options.operation ?? []).flatMap((id) => ['--include-operation-id', id]),
    ];
    const credentials = { FUZZ_BASE_URL: merchant.base_url, FUZZ_MERCHANT_ID: merchant.merchant_id, FUZZ_API_SECRET: merchant.api_secret };
    if (!options.quick) mkdirSync(join(root, 'reports'), { recursive: true });
    say(`schemathesis, seed ${options.seed}, ${examples} examples per operation`);
    const fuzzCode = await runPython(schemathesisArgs, { ...credentials, SCHEMATHESIS_HOOKS: 'hooks' });
    say('cross-tenant check: merchant B on merchant A\'s resources');
    const crossArgs = [join(root, 'tools/fuzz/cross_tenant.py'), ...(options.quick ? [] : ['--summary', `${reportBase}.md`, '--schemathesis-report', `${reportBase}.json`, '--seed', options.seed, '--examples', examples])];
    const token = (file) => JSON.parse(readFileSync(join(system.stateDir, file), 'utf8')).token;
    const crossCode = await runPython(crossArgs, {
      ...credentials,
      FUZZ_OTHER_MERCHANT_ID: other.merchant_id,
      FUZZ_OTHER_API_SECRET: other.api_secret,
      FUZZ_AGENT_TOKEN: token('agent.json'),
      FUZZ_OPERATOR_TOKEN: token('operator.json'),
    });
    exitCode = fuzzCode || crossCode;
    if (!options.quick) say(`reports: ${reportBase}.json and ${reportBase}.md`);
  } finally {
    await system.stop();
  }
  say(`${exitCode === 0 ? 'passed' : 'FAILED'} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  process.exit(exitCode);
}

main().catch((error) => {
  console.error(`[fuzz] ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
