#!/usr/bin/env node
/**
 * npm run fuzz: Schemathesis against the checked-in OpenAPI descriptions, one API after another on
 * one system: the merchant API (openapi.json, every request signed as the demo merchant by
 * hooks.py, then the cross-tenant check with a second merchant), the agent API
 * (docs/api/agent-openapi.json with the demo agent's token, then the cross-agent check) and the
 * back-office API (docs/api/backoffice-openapi.json with the demo operator's token, last: it may
 * suspend or rotate the demo merchant). See docs/operations/fuzzing.md.
 *
 *   npm run fuzz                        full: 200 examples per operation, stateful links, reports/fuzz-<timestamp>*.{json,md}
 *   npm run fuzz -- --quick             CI: 10 examples per operation, no reports
 *   npm run fuzz -- --api agent --seed 7 --max-examples 50 --operation getAgentOrder
 *
 * The system: its own `npm start --mode test` (deploy/local/start.mjs) on free loopback ports.
 * With KAFKA_BROKERS and TEST_PG_ADMIN_URL set (as for the tests) it uses that Kafka and
 * PostgreSQL under a namespace and databases of its own; otherwise start.mjs starts throwaway ones.
 * Python: a virtualenv in .local/fuzz-venv with tools/fuzz/requirements.txt, made on first use.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { builtEntry, root } from '../build-workspace.mjs';
import { parseCommandLine } from '../cli-arguments.mjs';
import { ensureDatabases } from '../../deploy/local/infra.mjs';
import { masterKeyringEnvironment } from '../../deploy/local/master-keyring.mjs';
import { catalogServices } from '../../deploy/catalog/catalog.mjs';
import { validationMismatches } from './schemathesis-log.mjs';

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

/**
 * The quick mode's phases for the agent and back-office APIs: the coverage phase (every
 * boundary and invalid value of each constraint, which is where their findings came from) but
 * not random fuzzing, so both add about 25 s to the quick run in CI, not a minute.
 */
const QUICK_BEARER_PHASES = 'examples,coverage';

/**
 * The APIs in the order they run: the back-office API last, as its operations may suspend the
 * demo merchant or rotate its secret. `check` is the API's own cross-principal check, run after
 * its Schemathesis run.
 */
const APIS = {
  merchant: {
    document: 'openapi.json',
    hooks: 'hooks',
    check: 'cross_tenant.py',
    quickPhases: 'examples,coverage,fuzzing',
    config: 'merchant-schemathesis.toml',
  },
  agent: {
    document: 'docs/api/agent-openapi.json',
    hooks: 'bearer_hooks',
    token: 'agent.json',
    check: 'cross_agent.py',
    quickPhases: QUICK_BEARER_PHASES,
    config: 'bearer-schemathesis.toml',
  },
  backoffice: {
    document: 'docs/api/backoffice-openapi.json',
    hooks: 'bearer_hooks',
    token: 'operator.json',
    quickPhases: QUICK_BEARER_PHASES,
    config: 'bearer-schemathesis.toml',
  },
};

const { values: options } = parseCommandLine({
  options: {
    quick: { type: 'boolean', default: false },
    api: { type: 'string', default: 'all' },
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
    const child = spawn(process.execPath, [join(root, 'deploy/local/start.mjs'), '--mode', 'test'], {
      cwd: root,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: false,
    });
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
  const result = spawnSync(
    process.execPath,
    [builtEntry('apps/gateway/src/create-merchant.ts'), '--name', 'Fuzz other tenant', '--callback-url', 'https://other.example/callbacks', '--json'],
    { cwd: root, env, encoding: 'utf8' },
  );
  if (result.status !== 0) throw new Error(`create-merchant failed: ${result.stderr}`);
  return JSON.parse(result.stdout.trim().split('\n').pop());
}

/**
 * Runs a Python tool of the fuzz run. With `logFile`, its output goes to that file and only its
 * last lines are printed, and only when it fails: Schemathesis closes its console output with a
 * pytest-style summary banner, and the test run's own closing line must be the last summary in
 * the log that CI reads (docs/operations/fuzzing.md).
 */
function runPython(args, env, logFile) {
  return new Promise((resolvePromise) => {
    const output = logFile ? openSync(logFile, 'w') : null;
    const child = spawn(python, args, {
      cwd: root,
      env: { ...process.env, PYTHONPATH: join(root, 'tools/fuzz'), ...env },
      stdio: output === null ? 'inherit' : ['ignore', output, output],
    });
    child.on('exit', (code) => {
      if (output === null) return resolvePromise(code ?? 1);
      closeSync(output);
      if (code !== 0) {
        const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-60);
        say(`the last ${tail.length} lines of ${relative(root, logFile)}:`);
        for (const line of tail) console.log(`  ${line.replaceAll('=====', '-----')}`);
      }
      resolvePromise(code ?? 1);
    });
  });
}

/** The APIs --api names (`all`, or one of APIS), narrowed to those holding an --operation when any is given. */
function selectedApis() {
  const names = options.api === 'all' ? Object.keys(APIS) : [options.api];
  if (!names.every((name) => name in APIS)) throw new Error(`--api must be all or one of ${Object.keys(APIS).join(', ')}, not ${options.api}`);
  if (!options.operation) return names;
  return names.filter((name) => {
    const document = JSON.parse(readFileSync(join(root, APIS[name].document), 'utf8'));
    const ids = Object.values(document.paths).flatMap((item) => Object.values(item).map(({ operationId }) => operationId));
    return options.operation.some((id) => ids.includes(id));
  });
}

async function main() {
  const startedAt = Date.now();
  const apis = selectedApis();
  if (apis.length === 0) throw new Error(`no API of --api ${options.api} has the operation ${options.operation.join(', ')}`);
  ensureVirtualenv();
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const reportBase = join(root, 'reports', `fuzz-${stamp}`);
  const sections = mkdtempSync(join(tmpdir(), 'mp-fuzz-sections-'));
  // Schemathesis' console output, one file per API (full runs also write the JSON reports).
  const logDirectory = options.quick ? join(root, '.local', 'fuzz') : join(root, 'reports');
  mkdirSync(logDirectory, { recursive: true });
  say('starting the system (deploy/local/start.mjs --mode test)');
  const system = await startSystem();
  const failed = [];
  try {
    const merchant = JSON.parse(readFileSync(join(system.stateDir, 'demo-merchant.json'), 'utf8'));
    const token = (file) => JSON.parse(readFileSync(join(system.stateDir, file), 'utf8')).token;
    say(`system ready in ${((Date.now() - startedAt) / 1000).toFixed(1)} s at ${merchant.base_url}; merchant A ${merchant.merchant_id}`);
    const examples = options['max-examples'] ?? String(options.quick ? QUICK_EXAMPLES : FULL_EXAMPLES);
    const credentials = {
      FUZZ_BASE_URL: merchant.base_url,
      FUZZ_MERCHANT_ID: merchant.merchant_id,
      FUZZ_API_SECRET: merchant.api_secret,
      FUZZ_AGENT_TOKEN: token('agent.json'),
      FUZZ_OPERATOR_TOKEN: token('operator.json'),
      FUZZ_OPERATOR_CREDENTIAL_ID: JSON.parse(readFileSync(join(system.stateDir, 'operator.json'), 'utf8')).credential_id,
    };
    if (!options.quick) mkdirSync(join(root, 'reports'), { recursive: true });
    for (const api of apis) {
      const { document, hooks, token: tokenFile, check, quickPhases, config } = APIS[api];
      const apiStartedAt = Date.now();
      const schemathesisArgs = [
        '-m',
        'schemathesis.cli',
        ...(config ? ['--config-file', join(root, 'tools/fuzz', config)] : []),
        'run',
        join(root, document),
        '--url',
        merchant.base_url,
        '--seed',
        options.seed,
        '--max-examples',
        examples,
        '--checks',
        CHECKS.join(','),
        '--workers',
        '1',
        '--request-timeout',
        '15',
        '--no-color',
        ...(options.quick ? ['--phases', quickPhases, '--no-shrink'] : ['--report', 'json', '--report-json-path', `${reportBase}-${api}.json`]),
        ...(options.operation ?? []).flatMap((id) => ['--include-operation-id', id]),
      ];
      say(`${api} API: schemathesis on ${document}, seed ${options.seed}, ${examples} examples per operation`);
      if (tokenFile) schemathesisArgs.push('--header', `Authorization: Bearer ${token(tokenFile)}`);
      const bearer = tokenFile ? { FUZZ_BEARER_TOKEN: token(tokenFile) } : {};
      const logFile = join(logDirectory, `fuzz-${stamp}-${api}-schemathesis.log`);
      const code = await runPython(schemathesisArgs, { ...credentials, ...bearer, SCHEMATHESIS_HOOKS: hooks }, logFile);
      say(`${api} API: schemathesis ${code === 0 ? 'found no failure' : `FAILED (exit ${code})`}; its output: ${relative(root, logFile)}`);
      // The description is looser than the server where Schemathesis says so: a failure even when
      // every check passed (the config's warnings.fail-on also makes its exit code non-zero).
      const mismatches = validationMismatches(readFileSync(logFile, 'utf8'));
      if (mismatches.length > 0) {
        say(
          `${api} API: FAILED: the server refused most of the valid-by-${document} requests of ${mismatches.length} operation(s) (Schemathesis' "schema validation mismatch"): ${mismatches.join(', ')}; the description must carry the constraints the server enforces (docs/operations/fuzzing.md)`,
        );
        failed.push(`${api} API (schema validation mismatch: ${mismatches.join(', ')})`);
      } else if (code !== 0) failed.push(`${api} API (schemathesis)`);
      if (check) {
        say(`${api} API: ${check}`);
        const checkEnv = api === 'merchant' ? { ...credentials, ...otherMerchantEnvironment(createOtherMerchant(system.stateDir)) } : credentials;
        if ((await runPython([join(root, 'tools/fuzz', check), '--lines', join(sections, `${api}.md`)], checkEnv)) !== 0) failed.push(`${api} API (${check})`);
      }
      say(`${api} API done in ${((Date.now() - apiStartedAt) / 1000).toFixed(1)} s`);
    }
    if (!options.quick) {
      const reports = apis.flatMap((api) => ['--report', `${api}=${reportBase}-${api}.json`]);
      const checkSections = apis.filter((api) => APIS[api].check).flatMap((api) => ['--section', join(sections, `${api}.md`)]);
      await runPython(
        [
          join(root, 'tools/fuzz/summary.py'),
          '--out',
          `${reportBase}.md`,
          '--title',
          `Fuzzing run (seed ${options.seed}, ${examples} examples per operation; ${apis.join(', ')})`,
          ...reports,
          ...checkSections,
        ],
        {},
      );
      say(`reports: ${reportBase}-{${apis.join(',')}}.json and ${reportBase}.md`);
    }
  } finally {
    await system.stop();
    rmSync(sections, { recursive: true, force: true });
  }
  say(`${failed.length === 0 ? 'passed' : `FAILED: ${failed.join(', ')}`} in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  process.exit(failed.length === 0 ? 0 : 1);
}

function otherMerchantEnvironment(other) {
  return { FUZZ_OTHER_MERCHANT_ID: other.merchant_id, FUZZ_OTHER_API_SECRET: other.api_secret };
}

main().catch((error) => {
  console.error(`[fuzz] ${error instanceof Error ? error.message : error}`);
  process.exit(1);
});
