#!/usr/bin/env node
/**
 * `node bench/memory-profile.mjs [--payins 200] [--concurrency 4] [--snapshots] [--node-options=[SERVICE=]FLAGS]…`: where each
 * Node service's memory goes. Runs the real system (SystemUnderTest from
 * dist/) with bench/memory-preload.cjs in every service, samples each one idle (after start-up)
 * and after a light load (`--payins` pay-ins taken through to success, `--concurrency` at a
 * time), and prints per service:
 * - RSS now and its peak (VmHWM), from /proc;
 * - process.memoryUsage(): V8 heap total and used, external, array buffers;
 * - V8's code and bytecode, and the CommonJS modules loaded (files, MB of source) with the
 *   largest packages among them;
 * - with `--snapshots`: a heap snapshot per service after the load, summarized by node type and
 *   by the constructors holding the most bytes (self size);
 * - the CPU each service spent on the load (user + system, from /proc), and of it the time in
 *   garbage collection (prom-client's nodejs_gc_duration_seconds, from /metrics), to see what a
 *   heap setting costs.
 * `--node-options` adds Node flags to every service's command line, or with `SERVICE=` to one
 * service's (repeatable), e.g. the heap limits of docker-compose.yml's NODE_OPTIONS.
 * Starts its own Kafka broker and PostgreSQL server (deploy/local/infra.mjs, test mode) unless
 * KAFKA_BROKERS and TEST_PG_ADMIN_URL are set.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { build, builtEntry } from '../tools/build-workspace.mjs';
import { payInSteps } from './payin-steps.mjs';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values: options } = parseArgs({
  options: {
    payins: { type: 'string', default: '200' },
    concurrency: { type: 'string', default: '4' },
    snapshots: { type: 'boolean', default: false },
    'node-options': { type: 'string', multiple: true, default: [] },
  },
});
const PAYINS = Number(options.payins);
const CONCURRENCY = Number(options.concurrency);
if (!Number.isInteger(PAYINS) || PAYINS < 0) throw new Error(`--payins must be a whole number, got ${options.payins}`);
if (!Number.isInteger(CONCURRENCY) || CONCURRENCY <= 0) throw new Error(`--concurrency must be a positive integer, got ${options.concurrency}`);
const MB = 1024 * 1024;
const mb = (bytes) => (bytes / MB).toFixed(1);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

await build({ logFile: join(root, '.local/build.log') });
let infra = null;
if (!(process.env.KAFKA_BROKERS && process.env.TEST_PG_ADMIN_URL)) {
  const { startInfra } = await import('../deploy/local/infra.mjs');
  console.log('[memory] starting a private Kafka broker and PostgreSQL server');
  infra = await startInfra({ mode: 'test' });
  process.env.KAFKA_BROKERS = infra.kafka.brokers;
  process.env.TEST_PG_ADMIN_URL = infra.postgres.adminUrl;
}
const { SystemUnderTest, CATALOG_SERVICE_NAMES, createOperator, registerAgent } = require(builtEntry('libs/shared/testing/src/index.ts'));
const directory = mkdtempSync(join(tmpdir(), 'memory-profile-'));
const profileEnv = { MEMORY_PROFILE_DIR: directory };
/** By service: the flags `--node-options` gives it, as NODE_OPTIONS (which Node reads next to its command line). */
const nodeOptions = Object.fromEntries(CATALOG_SERVICE_NAMES.map((name) => [name, []]));
for (const value of options['node-options']) {
  const match = /^([a-z]+)=(.*)$/.exec(value);
  if (match && !(match[1] in nodeOptions)) throw new Error(`--node-options names ${match[1]}, which is not a service (${CATALOG_SERVICE_NAMES.join(', ')})`);
  for (const name of match ? [match[1]] : CATALOG_SERVICE_NAMES) nodeOptions[name].push(match ? match[2] : value);
}
let system = null;
try {
  system = await SystemUnderTest.start({
    nodeArguments: ['--require', join(root, 'bench/memory-preload.cjs')],
    env: Object.fromEntries(
      CATALOG_SERVICE_NAMES.map((name) => [name, { ...profileEnv, ...(nodeOptions[name].length > 0 ? { NODE_OPTIONS: nodeOptions[name].join(' ') } : {}) }]),
    ),
  });
  // Let start-up's garbage settle before the idle sample.
  await sleep(5_000);
  const idle = await sampleAll();
  const [cpuBefore, gcBefore] = [cpuSecondsAll(), await gcSecondsAll()];
  if (PAYINS > 0) await load();
  const [cpuAfter, gcAfter] = [cpuSecondsAll(), await gcSecondsAll()];
  const loaded = await sampleAll();
  const spent = (after, before) => Object.fromEntries(CATALOG_SERVICE_NAMES.map((name) => [name, after[name] - before[name]]));
  report(idle, loaded, spent(cpuAfter, cpuBefore), spent(gcAfter, gcBefore));
  if (options.snapshots) {
    for (const name of CATALOG_SERVICE_NAMES) {
      const report = await sample(name, { snapshot: true });
      if (report.snapshot) summarizeSnapshot(name, report.snapshot);
    }
  }
} finally {
  await system?.stop();
  await infra?.stop();
  rmSync(directory, { recursive: true, force: true });
}

async function load() {
  const merchant = await system.createClient('Memory profile shop');
  const operator = await createOperator(system);
  const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  const { lifecycle } = payInSteps({ system, merchant, agent, orderIdPrefix: 'mem', callbackUrl: 'https://shop.example/callbacks' });
  const startedAt = Date.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < PAYINS) {
        next += 1;
        await lifecycle();
      }
    }),
  );
  console.log(`[memory] load: ${PAYINS} pay-ins through to success, ${CONCURRENCY} at a time, in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  await sleep(3_000);
}

async function sampleAll() {
  const samples = {};
  for (const name of CATALOG_SERVICE_NAMES) samples[name] = await sample(name, { snapshot: false });
  return samples;
}

/** Signals the service's preload and reads what it wrote, plus RSS from /proc. */
async function sample(name, { snapshot }) {
  const pid = system.pidOf(name);
  const file = join(directory, `${pid}.json`);
  rmSync(file, { force: true });
  const marker = join(directory, 'snapshot');
  // The preload takes a heap snapshot when this file exists (see memory-preload.cjs).
  if (snapshot) writeFileSync(marker, '');
  else rmSync(marker, { force: true });
  const status = procStatus(pid);
  process.kill(pid, 'SIGUSR2');
  for (let waited = 0; !existsSync(file); waited += 100) {
    if (waited > 120_000) throw new Error(`${name} (pid ${pid}) wrote no memory report`);
    await sleep(100);
  }
  return { ...JSON.parse(readFileSync(file, 'utf8')), status };
}

function procStatus(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? 0) * 1024;
  return { rss: kb('VmRSS'), peakRss: kb('VmHWM'), rssAnon: kb('RssAnon'), rssFile: kb('RssFile') };
}

/** User + system CPU seconds of each service so far, from /proc/<pid>/stat (fields 14 and 15, in clock ticks of 1/100 s). */
function cpuSecondsAll() {
  return Object.fromEntries(
    CATALOG_SERVICE_NAMES.map((name) => {
      const fields = readFileSync(`/proc/${system.pidOf(name)}/stat`, 'utf8')
        .split(') ')[1]
        .split(' ');
      return [name, (Number(fields[11]) + Number(fields[12])) / 100];
    }),
  );
}

/** Seconds each service has spent in garbage collection so far, all kinds (its /metrics). */
async function gcSecondsAll() {
  const seconds = {};
  for (const name of CATALOG_SERVICE_NAMES) {
    const base = name === 'gateway' ? system.gatewayInternalUrl : system.urlOf(name);
    const text = await (await fetch(`${base}/metrics`)).text();
    seconds[name] = [...text.matchAll(/^nodejs_gc_duration_seconds_sum\{[^}]*\} ([\d.e+-]+)$/gm)].reduce((sum, [, value]) => sum + Number(value), 0);
  }
  return seconds;
}

function report(idle, loaded, cpuSeconds, gcSeconds) {
  const flags = CATALOG_SERVICE_NAMES.filter((name) => nodeOptions[name].length > 0).map((name) => `${name}: ${nodeOptions[name].join(' ')}`);
  console.log(`\n## Memory per service (MB): idle after start-up → after ${PAYINS} pay-ins through to success (${CONCURRENCY} at a time)\n`);
  console.log(`Node flags: ${flags.length > 0 ? flags.join('; ') : 'none (V8 defaults)'}\n`);
  console.log(
    '| service | RSS | peak RSS | heap total | heap used | external | array buffers | code + bytecode | modules (files, MB source) | CPU s on the load | of it GC s |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const name of CATALOG_SERVICE_NAMES) {
    const [a, b] = [idle[name], loaded[name]];
    const pair = (pick) => `${mb(pick(a))} → ${mb(pick(b))}`;
    const code = (s) => s.code.code_and_metadata_size + s.code.bytecode_and_metadata_size;
    const files = Object.values(b.modules).reduce((sum, entry) => sum + entry.files, 0);
    const source = Object.values(b.modules).reduce((sum, entry) => sum + entry.sourceBytes, 0);
    console.log(
      `| ${name} | ${pair((s) => s.status.rss)} | ${mb(b.status.peakRss)} | ${pair((s) => s.memoryUsage.heapTotal)} | ${pair((s) => s.memoryUsage.heapUsed)} | ${pair((s) => s.memoryUsage.external)} | ${pair((s) => s.memoryUsage.arrayBuffers)} | ${pair(code)} | ${files}, ${mb(source)} | ${cpuSeconds[name].toFixed(2)} | ${gcSeconds[name].toFixed(2)} |`,
    );
  }
  console.log('\n## Heap spaces after the load (MB used of size)\n');
  const spaces = loaded[CATALOG_SERVICE_NAMES[0]].heapSpaces.map((space) => space.space_name);
  console.log(`| service | ${spaces.join(' | ')} |`);
  console.log(`|---|${spaces.map(() => '---:').join('|')}|`);
  for (const name of CATALOG_SERVICE_NAMES) {
    const cells = loaded[name].heapSpaces.map((space) => `${mb(space.space_used_size)} / ${mb(space.space_size)}`);
    console.log(`| ${name} | ${cells.join(' | ')} |`);
  }
  console.log('\n## Largest packages loaded (files, MB of source)\n');
  for (const name of CATALOG_SERVICE_NAMES) {
    const top = Object.entries(loaded[name].modules)
      .sort(([, x], [, y]) => y.sourceBytes - x.sourceBytes)
      .slice(0, 8)
      .map(([owner, entry]) => `${owner} ${entry.files}, ${mb(entry.sourceBytes)}`);
    console.log(`- ${name}: ${top.join('; ')}`);
  }
}

/** A heap snapshot's self sizes by node type, and the constructors holding the most. */
function summarizeSnapshot(name, file) {
  const snapshot = JSON.parse(readFileSync(file, 'utf8'));
  rmSync(file, { force: true });
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const [typeAt, nameAt, sizeAt] = ['type', 'name', 'self_size'].map((field) => fields.indexOf(field));
  const byType = new Map();
  const byConstructor = new Map();
  const { nodes, strings } = snapshot;
  for (let index = 0; index < nodes.length; index += fields.length) {
    const type = types[nodes[index + typeAt]];
    const size = nodes[index + sizeAt];
    byType.set(type, (byType.get(type) ?? 0) + size);
    if (type === 'object' || type === 'closure' || type === 'array' || type === 'native') {
      const key = `${type} ${strings[nodes[index + nameAt]]}`;
      byConstructor.set(key, (byConstructor.get(key) ?? 0) + size);
    }
  }
  const total = [...byType.values()].reduce((sum, size) => sum + size, 0);
  const top = (map, count) =>
    [...map.entries()]
      .sort(([, x], [, y]) => y - x)
      .slice(0, count)
      .map(([key, size]) => `${key} ${mb(size)}`);
  console.log(`\n${name} heap snapshot: ${mb(total)} MB live; by type: ${top(byType, 8).join('; ')}`);
  console.log(`  largest constructors: ${top(byConstructor, 10).join('; ')}`);
}
