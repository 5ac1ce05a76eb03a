#!/usr/bin/env node
/**
 * The compose smoke test (npm run compose:smoke): the root docker-compose.yml, built and run as
 * an operator would, then proven to lose and duplicate nothing after replicas are killed.
 *
 *   1. Docker: uses the running engine. When there is none, or the public base images are missing
 *      and cannot be pulled (a machine without a registry), runs the base-image script named by
 *      OFFLINE_BASE_IMAGES_SCRIPT (default ../shared/tools/offline-base-images.sh next to the
 *      repository, when it exists), which installs and starts the engine and bakes the images.
 *   2. Builds the images, brings the stack up under its own project name with fresh random
 *      secrets, and waits for every service to be healthy and for `init` to succeed. The first
 *      operator is made with the shipped command (`run --rm bootstrap-operator`), which refuses
 *      a second run, and signs in to the console and the back office; then `demo` runs.
 *   3. Walk-through: the demo merchant, a pay-in, the agent's confirm, a callback verified with
 *      the merchant's webhook secret (Standard Webhooks), and the balance; then the console the
 *      gateway serves: its page and bundle under the console's CSP, and the demo agent signed in.
 *   4. Restarts the gateway three times (two clean stops, one SIGKILL) and counts its reply
 *      topics on the broker after each: they must not grow with the restarts.
 *   5. Scales payments and ledger to 2 replicas each, kills one replica of each with `docker
 *      kill` (SIGKILL), then sends a steady pay-in load: the survivors must take over the killed
 *      replicas' partitions across containers. (That a replica killed *under* load loses nothing
 *      is proven once per test run, by the chaos run: docs/testing.md.)
 *   6. Checks that nothing was lost or duplicated: every acknowledged pay-in is completed exactly
 *      once, the balance moved by exactly their net amounts, each has its callback, and the
 *      money audit (npm run audit, every database) passes.
 *   7. Stops the services (SIGTERM, as `docker compose stop` does) and checks that each container
 *      still running exits 0.
 *   8. Tears the stack down with its volumes (also on failure), and stops the engine if it
 *      started it. Prints the timings of each step and the takeover figures.
 *
 * Exit code 0 when every check passed. Set COMPOSE_SMOKE_KEEP=1 to leave the stack up on failure.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Webhook } from 'standardwebhooks';
import { catalogServices } from '../catalog/catalog.mjs';
import { importBuilt } from '../../tools/build-workspace.mjs';
import { composeSecrets } from '../../tools/generate-secrets.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
const PROJECT = process.env.COMPOSE_SMOKE_PROJECT ?? 'mp-smoke';
/** The public images the build and the stack start from, with their pinned tags: the Dockerfile's NODE_IMAGE and the compose file's postgres and Kafka. */
const BASE_IMAGES = [
  /^ARG NODE_IMAGE=(\S+)$/m.exec(readFileSync(join(root, 'Dockerfile'), 'utf8'))[1],
  ...new Set([...readFileSync(join(root, 'docker-compose.yml'), 'utf8').matchAll(/^\s+image: ((?:postgres|apache\/kafka):\S+)$/gm)].map(([, image]) => image)),
];
const LONG_RUNNING = ['postgres', 'kafka', 'gateway', 'payments', 'ledger', 'withdrawals', 'disputes', 'callbacks'];
const LOAD_SECONDS = Number(process.env.COMPOSE_SMOKE_LOAD_SECONDS ?? 15);
/** Two replicas of each, one of which is killed before the load: the other must take over its partitions. */
const SCALE = ['--scale', 'payments=2', '--scale', 'ledger=2'];
const LOAD_RATE = Number(process.env.COMPOSE_SMOKE_RATE ?? 10);
const sleep = (ms) => new Promise((done) => setTimeout(done, ms));
const timings = [];
const say = (line) => console.log(`[compose:smoke] ${line}`);
/** The merchant's requests are signed by the merchant SDK's signer (libs/sdk/src/signing.ts), built on this machine first. */
const { signatureHeaders } = await importBuilt('libs/sdk/src/signing.ts');

class SmokeFailure extends Error {}
function check(condition, message) {
  if (!condition) throw new SmokeFailure(message);
}

async function timed(step, work) {
  const startedAt = Date.now();
  say(`${step} ...`);
  const result = await work();
  const seconds = (Date.now() - startedAt) / 1000;
  timings.push([step, seconds]);
  say(`${step}: done in ${seconds.toFixed(1)} s`);
  return result;
}

////////// Processes

function run(command, args, { env = process.env, quiet = false, allowFailure = false } = {}) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
      if (!quiet) process.stdout.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
      if (!quiet) process.stderr.write(chunk);
    });
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0 || allowFailure) resolvePromise({ code, output });
      else reject(new SmokeFailure(`${command} ${args.join(' ')} exited with ${code}\n${quiet ? output.split('\n').slice(-40).join('\n') : ''}`));
    });
  });
}

const dockerWorks = () => spawnSync('docker', ['info'], { stdio: 'ignore' }).status === 0;
const imagePresent = (image) => spawnSync('docker', ['image', 'inspect', image], { stdio: 'ignore' }).status === 0;

/** `docker compose` (v2) where the CLI has it, else Debian's docker-compose 1.29; probed once. */
let composeCommandFound = null;
function composeCommand() {
  composeCommandFound ??= findComposeCommand();
  return composeCommandFound;
}

function findComposeCommand() {
  if (spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' }).status === 0) return ['docker', ['compose']];
  if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) return ['docker-compose', []];
  throw new SmokeFailure('neither `docker compose` nor `docker-compose` is installed');
}

////////// Step 1: the engine and the base images

function baseImageScript() {
  const script = resolve(process.env.OFFLINE_BASE_IMAGES_SCRIPT ?? join(root, '../shared/tools/offline-base-images.sh'));
  return existsSync(script) ? script : null;
}

/** The label the base-image script puts on the stand-ins it bakes: a real image from a registry has none. */
const OFFLINE_STAND_IN_LABEL = 'offline-base-images.recipe';

/**
 * On a machine with no registry, the base-image script bakes stand-ins under major tags only
 * (postgres:15-bookworm, node:24-bookworm-slim), while the files pin patch releases
 * (postgres:15.20-bookworm, node:24.22.3-bookworm-slim) as a deployment should. The pinned name
 * is given to the stand-in of its major, and only to a stand-in: a real image of the major tag is
 * never passed off as the pinned release. Elsewhere compose pulls the pinned images as written.
 */
function aliasOfflineStandIn(pinned) {
  const standIn = pinned.replace(/^([^:]+):(\d+)(?:\.\d+)+(-.+)?$/, '$1:$2$3');
  if (standIn === pinned || !imagePresent(standIn)) return;
  if (inspect(standIn, `{{index .Config.Labels "${OFFLINE_STAND_IN_LABEL}"}}`) === '') return;
  spawnSync('docker', ['tag', standIn, pinned]);
  say(`offline stand-in ${standIn} tagged as ${pinned} (no registry here)`);
}

async function prepareDocker() {
  const engineWasRunning = dockerWorks();
  const missing = engineWasRunning ? BASE_IMAGES.filter((image) => !imagePresent(image)) : BASE_IMAGES;
  if (engineWasRunning && missing.length === 0) return { startedEngine: false, script: baseImageScript() };
  const script = baseImageScript();
  if (!script) {
    check(engineWasRunning, 'no Docker engine is running, and there is no base-image script to start one (OFFLINE_BASE_IMAGES_SCRIPT)');
    say(`base images missing (${missing.join(', ')}): compose will pull them`);
    return { startedEngine: false, script: null };
  }
  await run('bash', [script, '--for', root], { quiet: true });
  check(dockerWorks(), `the Docker engine is not running after ${script}`);
  // The script bakes major tags (postgres:15, node:24-bookworm-slim); a pinned patch tag it cannot
  // bake would make compose try a registry this machine may not reach: say so now, plainly.
  for (const image of BASE_IMAGES.filter((candidate) => !imagePresent(candidate))) aliasOfflineStandIn(image);
  const stillMissing = BASE_IMAGES.filter((image) => !imagePresent(image));
  if (stillMissing.length > 0) say(`base images still missing after ${script} (${stillMissing.join(', ')}): compose will try to pull them`);
  return { startedEngine: !engineWasRunning, script };
}

////////// Step 2: the stack

function secretsEnvFile(directory, gatewayPort, sinkCidr) {
  const values = {
    // Fresh secrets, made as `npm run secrets:generate` makes them for a real .env.
    ...composeSecrets(),
    GATEWAY_PUBLISH_ADDRESS: '127.0.0.1',
    GATEWAY_PUBLISH_PORT: String(gatewayPort),
    PUBLIC_BASE_URL: `http://127.0.0.1:${gatewayPort}`,
    // The callback sink runs on the Docker host: http, and its private address allowed.
    ALLOW_HTTP_CALLBACK_URLS: 'true',
    CALLBACK_ALLOWED_DESTINATIONS: sinkCidr,
    // The sink listens on an ephemeral port.
    CALLBACK_ALLOWED_PORTS: '1-65535',
    // Every payer page of the load phase comes from this one host: more than one payer's share.
    GATEWAY_RATE_LIMIT_ADDRESS_PER_SECOND: '1000',
    GATEWAY_RATE_LIMIT_ADDRESS_BURST: '1000',
    KAFKA_HEAP_OPTS: '-Xms384m -Xmx384m',
    // A crashed gateway's reply topic is swept within seconds here, not the default ten minutes.
    GATEWAY_REPLY_TOPIC_GRACE_SECONDS: '5',
    GATEWAY_REPLY_TOPIC_SWEEP_SECONDS: '2',
  };
  const file = join(directory, 'smoke.env');
  writeFileSync(file, Object.entries(values).map(([name, value]) => `${name}=${value}`).join('\n') + '\n', { mode: 0o600 });
  return { file, values };
}

function compose(envFile) {
  const [command, prefix] = composeCommand();
  // No profile for `up`: the first operator must be the bootstrap command's, and the demo comes after it.
  const base = [...prefix, '-p', PROJECT, '-f', join(root, 'docker-compose.yml'), '--project-directory', root, '--env-file', envFile];
  const withProfiles = [...base, '--profile', 'demo', '--profile', 'bootstrap'];
  return {
    run: (args, options) => run(command, [...base, ...args], options),
    /** With the demo and bootstrap profiles, for commands that name their services. */
    withProfiles: (args, options) => run(command, [...withProfiles, ...args], options),
    containers: async (service) => (await run(command, [...withProfiles, 'ps', '-q', service], { quiet: true })).output.split('\n').filter((id) => /^[0-9a-f]{12,}$/.test(id.trim())).map((id) => id.trim()),
  };
}

function inspect(container, format) {
  return spawnSync('docker', ['inspect', '-f', format, container], { encoding: 'utf8' }).stdout.trim();
}

/** Waits until every container of `services` is healthy, and every one-shot of `oneShots` exited 0. */
async function waitHealthy(stack, services, oneShots = [], timeoutMs = 300_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pending = [];
    for (const service of services) {
      const ids = await stack.containers(service);
      if (ids.length === 0) pending.push(`${service} (no container)`);
      for (const id of ids) {
        const health = inspect(id, '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}');
        if (health !== 'healthy') pending.push(`${service} ${id.slice(0, 12)} ${health}`);
      }
    }
    for (const service of oneShots) {
      for (const id of await stack.containers(service)) {
        const [status, exitCode] = inspect(id, '{{.State.Status}} {{.State.ExitCode}}').split(' ');
        if (status === 'exited' && exitCode !== '0') throw new SmokeFailure(`${service} exited with ${exitCode}`);
        if (status !== 'exited') pending.push(`${service} ${status}`);
      }
    }
    if (pending.length === 0) return;
    if (Date.now() > deadline) throw new SmokeFailure(`not healthy after ${timeoutMs / 1000} s: ${pending.join(', ')}`);
    await sleep(1000);
  }
}

/**
 * `service_healthy` must mean ready: every container Docker reports healthy answers
 * /health/ready (the catalog's health.ready) with 200, asked from inside the container. Also
 * that each runs read-only, without capabilities and under a memory limit.
 */
async function healthyMeansReady(stack) {
  const answers = [];
  for (const service of catalogServices) {
    for (const id of await stack.containers(service.name)) {
      const health = inspect(id, '{{if .State.Health}}{{.State.Health.Status}}{{end}}');
      // As the image's health check dials it: every port but the gateway's public one is an internal listener, HTTPS here.
      const scheme = service.name === 'gateway' ? 'http' : 'https';
      const probe = `fetch('${scheme}://127.0.0.1:${service.devPort}${service.health.ready}', { signal: AbortSignal.timeout(5000) }).then((r) => console.log(r.status), (e) => console.log('error ' + e.message))`;
      const status = (await run('docker', ['exec', id, 'node', '-e', probe], { quiet: true, allowFailure: true })).output.trim();
      answers.push(`${service.name} ${id.slice(0, 12)} ${health}: ${status}`);
      // The compose conventions reached the engine (1.29 and v2 both): read-only root, no capabilities, a memory limit.
      const [readOnly, memory, capDrop] = inspect(id, '{{.HostConfig.ReadonlyRootfs}} {{.HostConfig.Memory}} {{json .HostConfig.CapDrop}}').split(' ');
      check(readOnly === 'true' && Number(memory) > 0 && capDrop === '["ALL"]', `${service.name} ${id.slice(0, 12)}: read-only ${readOnly}, memory limit ${memory}, cap_drop ${capDrop}`);
      check(health === 'healthy' && status === '200', `${service.name} ${id.slice(0, 12)} is ${health}, and ${service.health.ready} answered ${status}`);
    }
  }
  return answers;
}

////////// The merchant's view: signed requests and a verifying callback sink

function merchantClient(baseUrl, merchant) {
  return async (method, path, body) => {
    const raw = body === undefined ? '' : JSON.stringify(body);
    const startedAt = Date.now();
    try {
      const response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: { ...signatureHeaders(merchant.merchant_id, merchant.api_secret, path, raw), ...(raw ? { 'content-type': 'application/json' } : {}) },
        body: raw || undefined,
        signal: AbortSignal.timeout(30_000),
      });
      const text = await response.text();
      return { status: response.status, body: text ? JSON.parse(text) : null, ms: Date.now() - startedAt };
    } catch (error) {
      return { status: 0, body: { error: String(error) }, ms: Date.now() - startedAt };
    }
  };
}

async function backofficeCall(baseUrl, token, method, path, body) {
  const response = await fetch(`${baseUrl}/backoffice/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(30_000),
  });
  return { status: response.status, body: await response.json().catch(() => null) };
}

/**
 * The merchant's callback endpoint on the Docker host: keeps each callback that verifies. Not the
 * tests' CallbackReceiver (libs/shared/testing): this script runs on plain Node, without the
 * TypeScript loader and the @mp/* aliases that library needs (docs/decisions/one-callback-receiver.md).
 */
async function startSink(host, webhookSecret) {
  const verified = [];
  let rejected = 0;
  const server = createServer((request, response) => {
    const chunks = [];
    request.on('data', (chunk) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        new Webhook(webhookSecret).verify(body, request.headers);
        verified.push({ id: request.headers['webhook-id'], body: JSON.parse(body) });
        response.writeHead(200).end();
      } catch {
        rejected += 1;
        response.writeHead(400).end();
      }
    });
  });
  await new Promise((done) => server.listen(0, host, done));
  return { verified, rejected: () => rejected, port: server.address().port, stop: () => new Promise((done) => server.close(done)) };
}

/** The Docker host's address on the default bridge: what host.docker.internal (host-gateway) resolves to. */
function dockerHostAddress() {
  const gateway = spawnSync('docker', ['network', 'inspect', 'bridge', '-f', '{{range .IPAM.Config}}{{.Gateway}}{{end}}'], { encoding: 'utf8' }).stdout.trim();
  return gateway || '172.17.0.1';
}

const toMinor = (decimal) => {
  const [whole, fraction = ''] = String(decimal).split('.');
  return BigInt(whole) * 100n + BigInt((fraction + '00').slice(0, 2)) * (String(decimal).startsWith('-') ? -1n : 1n);
};

/** The settlement balance's available amount of `currency`, in minor units (GET /v2/merchant/balances). */
function availableMinor(balances, currency) {
  const entry = balances?.settlement?.find((candidate) => candidate.currency === currency);
  return entry ? toMinor(entry.available) : 0n;
}

////////// Steps 3 to 5

/** The payer opens the payment details (which assigns the agent), then the agent confirms the money arrived. */
async function payAndConfirm(baseUrl, demo, orderId, redirectUrl) {
  const detailsUrl = `${redirectUrl.replace(/^https?:\/\/[^/]+/, baseUrl)}/details`;
  const path = `/agent/orders/${encodeURIComponent(demo.merchant_id)}/${encodeURIComponent(orderId)}/confirm`;
  let last = null;
  for (let attempt = 0; attempt < 60; attempt += 1) {
    try {
      const details = await fetch(detailsUrl, { method: 'POST', redirect: 'manual', signal: AbortSignal.timeout(30_000) });
      last = `payer details: HTTP ${details.status}`;
      if (details.status === 303) {
        const confirmed = await backofficeCall(baseUrl, demo.agent_token, 'POST', path, {});
        last = `agent confirm: HTTP ${confirmed.status} ${JSON.stringify(confirmed.body)}`;
        if (confirmed.status === 200) return;
      }
    } catch (error) {
      last = String(error);
    }
    // The order's event is still on its way to the agent's queue, or a replica is taking over.
    await sleep(500);
  }
  throw new SmokeFailure(`${orderId} could not be paid and confirmed (${last})`);
}

async function waitForStatus(request, orderId, wanted, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const read = await request('GET', `/v2/payments/status/${orderId}`);
    if (read.status === 200 && read.body.status === wanted) return read.body;
    if (Date.now() > deadline) throw new SmokeFailure(`${orderId} is ${read.status === 200 ? read.body.status : `HTTP ${read.status}`}, not ${wanted}, after ${timeoutMs / 1000} s`);
    await sleep(500);
  }
}

async function waitFor(condition, what, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new SmokeFailure(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

async function walkThrough({ baseUrl, demo, sink, sinkUrl }) {
  const request = merchantClient(baseUrl, demo);
  const before = await request('GET', '/v2/merchant/balances');
  check(before.status === 200, `balances: HTTP ${before.status} ${JSON.stringify(before.body)}`);
  const orderId = `smoke-walk-${Date.now().toString(36)}`;
  const created = await request('POST', '/v2/payments/incoming', { order_id: orderId, amount: 1500.5, currency: 'RUB', country: 'RU', callback_url: sinkUrl });
  check(created.status === 201 && created.body.redirect_url, `pay-in: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  const payerPage = await fetch(created.body.redirect_url.replace(/^https?:\/\/[^/]+/, baseUrl));
  check(payerPage.status === 200, `payer page ${created.body.redirect_url}: HTTP ${payerPage.status}`);
  await payAndConfirm(baseUrl, demo, orderId, created.body.redirect_url);
  const order = await waitForStatus(request, orderId, 'SUCCEEDED');
  await waitFor(() => sink.verified.some((callback) => JSON.stringify(callback.body).includes(orderId) && JSON.stringify(callback.body).includes('SUCCEEDED')), `the verified SUCCEEDED callback of ${orderId}`, 60_000);
  const after = await request('GET', '/v2/merchant/balances');
  const moved = availableMinor(after.body, 'RUB') - availableMinor(before.body, 'RUB');
  check(moved === toMinor(order.amount) - toMinor(order.fee), `the balance moved by ${moved}, expected ${toMinor(order.amount) - toMinor(order.fee)} (amount ${order.amount}, fee ${order.fee})`);
  say(`walk-through: pay-in ${orderId} completed, callback verified, balance +${moved} minor units (RUB)`);
}

/**
 * The console the gateway image serves: the page and its bundle under the console's CSP, and a
 * sign-in (the demo agent's token) whose session cookie reads the agent's queue through the relay.
 */
async function consoleSignIn({ baseUrl, demo }) {
  const page = await fetch(`${baseUrl}/console/`);
  const html = await page.text();
  check(page.status === 200 && /script-src 'self'/.test(page.headers.get('content-security-policy') ?? ''), `/console/: HTTP ${page.status}, CSP ${page.headers.get('content-security-policy')}`);
  const script = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
  check(script !== undefined, `/console/ names no script: ${html.slice(0, 300)}`);
  const bundle = await fetch(new URL(script, `${baseUrl}/console/`));
  check(bundle.status === 200 && (await bundle.text()).length > 10_000, `the console's script ${script}: HTTP ${bundle.status}`);
  const login = await fetch(`${baseUrl}/console/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: baseUrl }, body: JSON.stringify({ role: 'agent', credential: demo.agent_token }) });
  const session = await login.json().catch(() => null);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  check(login.status === 200 && session?.role === 'agent' && cookie.startsWith('__Host-console_session='), `console sign-in: HTTP ${login.status} ${JSON.stringify(session)}`);
  const queue = await fetch(`${baseUrl}/console/api/agent/orders`, { headers: { cookie } });
  const orders = await queue.json().catch(() => null);
  check(queue.status === 200 && Array.isArray(orders?.data), `the agent's queue through the console: HTTP ${queue.status} ${JSON.stringify(orders)}`);
  say(`console: page and bundle served under its CSP; the demo agent signed in and read ${orders.data.length} order(s) of its queue`);
}

/**
 * The first operator, as a real deployment makes it (docs/operations/operators.md): the ops
 * image's bootstrap command through `run --rm`, whose one output line holds the credential; a
 * second run is refused with exit 3 and prints none. The credential then signs in to the console
 * (role operator) and, through the console's back-office route, lists the operator credentials.
 */
async function bootstrapFirstOperator({ stack, baseUrl }) {
  const bootstrap = (name) => stack.withProfiles(['run', '--rm', '-T', 'bootstrap-operator', '--name', name, '--json'], { quiet: true, allowFailure: true });
  const first = await bootstrap('Smoke operator');
  check(first.code === 0, `bootstrap-operator exited with ${first.code}:\n${first.output}`);
  const operator = JSON.parse(first.output.trim().split('\n').pop());
  check(/^bo_/.test(operator.token) && /^op_/.test(operator.operator_id), `bootstrap-operator printed no credential: ${first.output}`);
  const second = await bootstrap('Second try');
  check(second.code === 3 && /refused/.test(second.output) && !/bo_[A-Za-z0-9_-]{20}/.test(second.output), `a second bootstrap-operator was not refused (exit ${second.code}):\n${second.output}`);
  const login = await fetch(`${baseUrl}/console/api/login`, { method: 'POST', headers: { 'content-type': 'application/json', origin: baseUrl }, body: JSON.stringify({ role: 'operator', credential: operator.token }) });
  const session = await login.json().catch(() => null);
  const cookie = (login.headers.get('set-cookie') ?? '').split(';')[0];
  check(login.status === 200 && session?.role === 'operator' && cookie.startsWith('__Host-console_session='), `console sign-in as the first operator: HTTP ${login.status} ${JSON.stringify(session)}`);
  const credentials = await fetch(`${baseUrl}/console/api/operator/operator-credentials`, { headers: { cookie } });
  const listed = await credentials.json().catch(() => null);
  const own = listed?.data?.find?.((credential) => credential.credential_id === operator.credential_id);
  check(credentials.status === 200 && own?.operator_id === operator.operator_id && own?.may_issue_operator_credentials === true, `the back office through the console as the first operator: HTTP ${credentials.status} ${JSON.stringify(listed)}`);
  say(`first operator ${operator.operator_id} made by bootstrap-operator (a second run refused with exit 3), signed in to the console, listed ${listed.data.length} operator credential(s) through the back office`);
}

/**
 * The gateway's reply topics and their dead-letter topics on the broker, listed by the payments
 * container's own principal (every principal may describe every topic) with the kafkajs its image
 * ships: a second, where the broker image's kafka-topics.sh takes minutes to start its JVM on a
 * loaded machine.
 */
async function gatewayReplyTopics(stack) {
  const [payments] = await stack.containers('payments');
  const script = `
    const { readFileSync } = require('node:fs');
    const { Kafka, logLevel } = require('kafkajs');
    const admin = new Kafka({ clientId: 'smoke-topics', brokers: [process.env.KAFKA_BROKERS], logLevel: logLevel.NOTHING,
      ssl: { ca: [readFileSync(process.env.KAFKA_SSL_CA_FILE, 'utf8')] }, sasl: { mechanism: 'scram-sha-512', username: process.env.KAFKA_SASL_USERNAME, password: process.env.KAFKA_SASL_PASSWORD } }).admin();
    admin.connect().then(() => admin.listTopics()).then((topics) => console.log('TOPICS ' + JSON.stringify(topics)), (error) => { console.error(error.message); process.exitCode = 1; }).finally(() => admin.disconnect());`;
  const listed = await run('docker', ['exec', payments, 'node', '-e', script], { quiet: true });
  // Marked: kafkajs's warnings on stderr may come after it in the output.
  const line = listed.output.split('\n').find((entry) => entry.startsWith('TOPICS '));
  check(line !== undefined, `could not list the topics:\n${listed.output}`);
  return JSON.parse(line.slice('TOPICS '.length)).filter((topic) => topic.startsWith('gateway.replies.'));
}

/**
 * Restarts the gateway three times, twice with SIGTERM (compose restart: the replica deletes its
 * own reply topic) and once with SIGKILL (no shutdown hook: the restarted replica's sweep deletes
 * the orphan after GATEWAY_REPLY_TOPIC_GRACE_SECONDS), and answers the count of reply topics after
 * each. Every start has a new instance id, so without the cleanup each would leave a pair behind.
 */
async function restartGatewayCountingTopics({ stack, baseUrl, demo }) {
  const counts = [(await gatewayReplyTopics(stack)).length];
  check(counts[0] === 2, `before the restarts: ${counts[0]} gateway reply topics, expected one and its dead-letter topic`);
  const healthyGateway = () => waitHealthy(stack, ['gateway'], [], 120_000);
  for (const stop of ['SIGTERM', 'SIGTERM', 'SIGKILL']) {
    const [gateway] = await stack.containers('gateway');
    const before = await gatewayReplyTopics(stack);
    if (stop === 'SIGTERM') await stack.run(['restart', '-t', '30', 'gateway'], { quiet: true });
    else {
      await run('docker', ['kill', gateway], { quiet: true });
      // `docker kill` is an operator's stop, which the restart policy respects: started again by hand.
      await run('docker', ['start', gateway], { quiet: true });
    }
    await healthyGateway();
    // Settled once the old pair is gone and the new replica's pair exists: at once after a clean stop, after the grace after a crash.
    await waitFor(async () => {
      const now = await gatewayReplyTopics(stack);
      return now.length === 2 && !now.some((topic) => before.includes(topic));
    }, `the gateway's reply topics to settle at one pair after a ${stop} restart`, 120_000).catch(async (error) => {
      throw new SmokeFailure(`${error.message}: ${(await gatewayReplyTopics(stack)).join(', ')}`);
    });
    counts.push((await gatewayReplyTopics(stack)).length);
  }
  // The restarted gateway still gets its replies.
  const orderId = `smoke-restarted-${Date.now().toString(36)}`;
  const created = await merchantClient(baseUrl, demo)('POST', '/v2/payments/incoming', { order_id: orderId, amount: 100, currency: 'RUB', country: 'RU', callback_url: 'https://shop.example/callbacks' });
  check(created.status === 201, `a pay-in through the restarted gateway: HTTP ${created.status} ${JSON.stringify(created.body)}`);
  return counts;
}

/**
 * One replica of payments and one of ledger killed (`docker kill`), then steady pay-ins with
 * confirms: the first ones wait for the survivors to take over the killed replicas' partitions
 * (the takeover figures). The kills come before the load, not during it: a replica killed under
 * load is the chaos run's proof (docs/testing.md), here it is the compose deployment that takes over.
 */
async function killThenLoad({ stack, baseUrl, demo, sinkUrl }) {
  const request = merchantClient(baseUrl, demo);
  const balancesBefore = (await request('GET', '/v2/merchant/balances')).body;
  const outcomes = [];
  const kills = [];
  const startedAt = Date.now();
  for (const service of ['payments', 'ledger']) {
    const [container] = await stack.containers(service);
    await run('docker', ['kill', container], { quiet: true });
    kills.push({ service, container, killedAtMs: Date.now() - startedAt });
    say(`killed ${service} replica ${container.slice(0, 12)} (SIGKILL) at ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  }
  const inFlight = [];
  for (let index = 0; Date.now() - startedAt < LOAD_SECONDS * 1000; index += 1) {
    const orderId = `smoke-load-${startedAt.toString(36)}-${index}`;
    const sentAtMs = Date.now() - startedAt;
    inFlight.push(
      (async () => {
        const created = await request('POST', '/v2/payments/incoming', { order_id: orderId, amount: 100 + (index % 50), currency: 'RUB', country: 'RU', callback_url: sinkUrl });
        const outcome = { orderId, sentAtMs, status: created.status, ms: created.ms };
        outcomes.push(outcome);
        if (created.status === 201) {
          await payAndConfirm(baseUrl, demo, orderId, created.body.redirect_url);
          outcome.confirmed = true;
        }
      })(),
    );
    await sleep(Math.max(0, startedAt + ((index + 1) * 1000) / LOAD_RATE - Date.now()));
  }
  await Promise.all(inFlight);
  return { outcomes, kills, balancesBefore };
}

async function verifyNothingLost({ stack, baseUrl, demo, sink, load }) {
  const request = merchantClient(baseUrl, demo);
  // A create that timed out may still have made its order: a status read settles it.
  for (const outcome of load.outcomes.filter(({ status }) => status !== 201)) {
    const read = await request('GET', `/v2/payments/status/${outcome.orderId}`);
    outcome.settled = read.status === 200 ? 'exists' : read.status === 404 ? 'absent' : `HTTP ${read.status}`;
    check(outcome.settled !== 'exists' || outcome.status === 0 || outcome.status >= 500, `${outcome.orderId} was refused with ${outcome.status} yet exists`);
    if (outcome.settled === 'exists') {
      check(read.body.redirect_url, `${outcome.orderId}: its status has no redirect_url`);
      await payAndConfirm(baseUrl, demo, outcome.orderId, read.body.redirect_url);
      outcome.confirmed = true;
    }
  }
  const confirmed = load.outcomes.filter((outcome) => outcome.confirmed);
  let expected = 0n;
  for (const outcome of confirmed) {
    const order = await waitForStatus(request, outcome.orderId, 'SUCCEEDED');
    expected += toMinor(order.amount) - toMinor(order.fee);
  }
  let moved = 0n;
  await waitFor(async () => {
    moved = availableMinor((await request('GET', '/v2/merchant/balances')).body, 'RUB') - availableMinor(load.balancesBefore, 'RUB');
    return moved === expected;
  }, 'the balance to move by the completed pay-ins', 120_000).catch(() => {
    throw new SmokeFailure(`the balance moved by ${moved} minor units; the ${confirmed.length} completed pay-ins add up to ${expected}: money was ${moved > expected ? 'created' : 'lost'}`);
  });
  const completedCallback = (orderId) => sink.verified.some(({ body }) => body?.data?.order_id === orderId && JSON.stringify(body).includes('SUCCEEDED'));
  await waitFor(() => confirmed.every(({ orderId }) => completedCallback(orderId)), 'a verified SUCCEEDED callback for every completed pay-in', 120_000);
  // The money audit over every service's database (docs/operations/audit.md), from the ops image
  // that already holds all six database URLs (the init service), after the replicas were killed.
  const audit = await stack.run(['run', '--rm', '--no-deps', '-T', 'init', 'node', 'dist/apps/ops/src/audit.js'], { quiet: true, allowFailure: true });
  check(audit.code === 0, `the money audit (npm run audit) exited with ${audit.code}:\n${audit.output}`);
  return { confirmed: confirmed.length, expected, audit: audit.output.trim().split('\n').pop() };
}

/**
 * What a compromised pod would try, from inside the payments container with the Kafka client
 * its image ships (kafkajs) and the CA it mounts: a RequestWithdrawal on withdrawals.commands as
 * the payments principal (ACLs allow only the gateway's), and a connection with a wrong password.
 * The walk-through before this is the positive side: the gateway's principal wrote the commands
 * it made. (Kafka 4's console producer reports neither refusal: its idempotent producer drops
 * the record with an INFO line, so it cannot be the probe.)
 */
async function forgedProduces({ stack, secrets }) {
  const [payments] = await stack.containers('payments');
  const produceAs = async (user, password) => {
    const script = `
      const { readFileSync } = require('node:fs');
      const { Kafka, logLevel } = require('kafkajs');
      const kafka = new Kafka({ clientId: 'smoke-forger', brokers: [process.env.KAFKA_BROKERS], logLevel: logLevel.NOTHING, retry: { retries: 1 },
        ssl: { ca: [readFileSync(process.env.KAFKA_SSL_CA_FILE, 'utf8')] }, sasl: { mechanism: 'scram-sha-512', username: process.env.MP_USER, password: process.env.MP_PASSWORD } });
      const producer = kafka.producer({ allowAutoTopicCreation: false });
      producer.connect()
        .then(() => producer.send({ topic: 'withdrawals.commands', acks: -1, messages: [{ key: 'forged', value: JSON.stringify({ type: 'RequestWithdrawal', data: { merchantId: 'any', amountMinor: '100000000' } }) }] }))
        .then(() => console.log('WRITTEN'), (error) => console.log(error.name + ' ' + (error.type ?? '') + ' ' + error.message))
        .finally(() => producer.disconnect().catch(() => {}));`;
    return (await run('docker', ['exec', '-e', `MP_USER=${user}`, '-e', `MP_PASSWORD=${password}`, payments, 'node', '-e', script], { quiet: true, allowFailure: true })).output;
  };
  const asPayments = await produceAs('payments', secrets.PAYMENTS_KAFKA_PASSWORD);
  check(/TOPIC_AUTHORIZATION_FAILED/.test(asPayments) && !/WRITTEN/.test(asPayments), `the payments principal wrote withdrawals.commands, or failed otherwise:\n${asPayments.slice(-1500)}`);
  const wrongPassword = await produceAs('gateway', 'not-the-password');
  check(/SASL.*authentication failed/i.test(wrongPassword) && !/WRITTEN/.test(wrongPassword), `a wrong password was not refused as such:\n${wrongPassword.slice(-1500)}`);
}

/**
 * Internal HTTP is HTTPS (docs/operations/internal-tls.md): from the payments container, every
 * other service's internal listener, and the gateway's, answers over TLS with a certificate the
 * platform CA vouches for (NODE_EXTRA_CA_CERTS), and gives nothing to clear HTTP. The walk-through
 * before this is the working side: its calls crossed these listeners.
 */
async function internalTlsOnly({ stack }) {
  const [payments] = await stack.containers('payments');
  const script = `
    // Liveness, not readiness: this is about the listener, not whether Kafka answers at this moment.
    const listeners = ['ledger:3002/health/live', 'withdrawals:3003/health/live', 'disputes:3004/health/live', 'callbacks:3005/health/live', 'gateway:3010/health'];
    const outcome = (url) => fetch(url, { signal: AbortSignal.timeout(5000) }).then((response) => String(response.status), (error) => 'refused ' + (error.cause?.code ?? error.message));
    Promise.all(listeners.map(async (listener) => listener + ' https=' + (await outcome('https://' + listener)) + ' http=' + (await outcome('http://' + listener))))
      .then((lines) => console.log(lines.join('\\n')));`;
  const output = (await run('docker', ['exec', payments, 'node', '-e', script], { quiet: true, allowFailure: true })).output;
  const lines = output.trim().split('\n').filter((line) => line.includes(' https='));
  check(lines.length === 5 && lines.every((line) => line.includes('https=200') && line.includes('http=refused')), `an internal listener is not HTTPS-only:\n${output.slice(-1500)}`);
}

function takeoverFigures(load) {
  const lines = [];
  for (const kill of load.kills) {
    const window = load.outcomes.filter(({ sentAtMs }) => sentAtMs >= kill.killedAtMs && sentAtMs < kill.killedAtMs + 15_000);
    const slowest = Math.max(0, ...window.map(({ ms }) => ms));
    const failed = window.filter(({ status }) => status !== 201).map(({ status, settled }) => `HTTP ${status || 'none'}, then ${settled}`);
    lines.push(`${kill.service} replica killed at ${(kill.killedAtMs / 1000).toFixed(1)} s: ${window.length} pay-ins sent in the next 15 s, ${failed.length} not acknowledged${failed.length ? ` (${failed.join('; ')})` : ''}, slowest answer ${(slowest / 1000).toFixed(1)} s`);
  }
  const latencies = load.outcomes.map(({ ms }) => ms).sort((a, b) => a - b);
  const percentile = (p) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? 0;
  const unacknowledged = load.outcomes.filter(({ status }) => status !== 201).map(({ orderId, status, settled }) => `${orderId}: HTTP ${status || 'none'}, then ${settled}`);
  lines.push(`all ${load.outcomes.length} pay-ins: ${load.outcomes.length - unacknowledged.length} acknowledged${unacknowledged.length ? ` (not: ${unacknowledged.join('; ')})` : ''}; create latency p50 ${percentile(50)} ms, p99 ${percentile(99)} ms, max ${percentile(100)} ms`);
  return lines;
}

////////// Main

async function main() {
  const startedAt = Date.now();
  const docker = await timed('Docker engine and base images', prepareDocker);
  const workDir = mkdtempSync(join(tmpdir(), 'compose-smoke-'));
  const hostAddress = dockerHostAddress();
  let sink = null;
  let stack = null;
  let failure = null;
  try {
    const gatewayPort = await new Promise((done) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address();
        probe.close(() => done(port));
      });
    });
    const secrets = secretsEnvFile(workDir, gatewayPort, `${hostAddress}/32`);
    stack = compose(secrets.file);
    await stack.withProfiles(['down', '-v', '--remove-orphans'], { quiet: true, allowFailure: true });
    // The file as compose itself reads it (1.29 here, v2 elsewhere): with this run's secrets, and with the documented example.
    await timed('docker-compose config -q (no .env, this run\'s .env, and .env.example)', async () => {
      // An empty file, not the .env a developer may keep next to docker-compose.yml: the file as cloned.
      const noVariables = join(workDir, 'empty.env');
      writeFileSync(noVariables, '');
      await compose(noVariables).run(['config', '-q'], { quiet: true });
      await stack.run(['config', '-q'], { quiet: true });
      await compose(join(root, '.env.example')).run(['config', '-q'], { quiet: true });
    });
    await timed('build the images (compose build)', () => stack.run(['build'], { quiet: true }));
    await timed('compose up to healthy', async () => {
      await stack.run(['up', '-d'], { quiet: true });
      await waitHealthy(stack, LONG_RUNNING, ['init']);
    });
    const readiness = await timed('every healthy service answers /health/ready 200 (and runs read-only, no capabilities, memory-limited)', () => healthyMeansReady(stack));
    say(`readiness: ${readiness.join('; ')}`);
    const baseUrl = `http://127.0.0.1:${gatewayPort}`;
    await timed('the first operator: bootstrap-operator once (a second run refused), signed in to the console and the back office', () => bootstrapFirstOperator({ stack, baseUrl }));
    await timed('demo', async () => {
      // --no-deps: what demo waits for is up and healthy already; without it compose 1.29 reruns the one-shots (kafka-users, init).
      await stack.withProfiles(['up', '-d', '--no-deps', 'demo'], { quiet: true });
      await waitHealthy(stack, [], ['demo']);
    });
    const banner = (await stack.withProfiles(['logs', '--no-color', 'demo'], { quiet: true })).output;
    check(banner.includes('merchant x-api-key') && banner.includes('agent token'), `the demo service printed no credentials:\n${banner}`);
    const demo = JSON.parse((await stack.withProfiles(['run', '--rm', '--no-deps', 'demo', 'node', 'dist/apps/ops/src/demo.js', '--json'], { quiet: true })).output.trim().split('\n').pop());
    // Bound to the Docker host's bridge address only: reachable from the containers, not beyond this machine.
    sink = await startSink(hostAddress, demo.webhook_secret);
    const sinkUrl = `http://host.docker.internal:${sink.port}/callbacks`;
    await timed('walk-through (pay-in, confirm, verified callback, balance)', () => walkThrough({ baseUrl, demo, sink, sinkUrl }));
    await timed('console: the page, its bundle, an agent signed in reading its queue', () => consoleSignIn({ baseUrl, demo }));
    await timed('internal HTTP: every internal listener answers HTTPS from the platform CA, and not clear HTTP', () => internalTlsOnly({ stack }));
    await timed('Kafka ACLs: a forged RequestWithdrawal as the payments principal is refused, a wrong password too', () => forgedProduces({ stack, secrets: secrets.values }));
    const replyTopicCounts = await timed('gateway restarted three times (SIGTERM, SIGTERM, SIGKILL): its reply topics do not grow', () => restartGatewayCountingTopics({ stack, baseUrl, demo }));
    say(`gateway reply topics (with their dead-letter topics) after each restart: ${replyTopicCounts.join(', ')}`);
    // A step of its own, after the stack is healthy: eight services starting at once on two cores
    // can take longer than the images' health start period.
    await timed('scale payments and ledger to 2 replicas', async () => {
      await stack.run(['up', '-d', '--no-recreate', ...SCALE], { quiet: true });
      await waitHealthy(stack, ['payments', 'ledger']);
      check((await stack.containers('payments')).length === 2 && (await stack.containers('ledger')).length === 2, 'payments and ledger did not scale to 2 replicas');
    });
    const load = await timed(`a payments and a ledger replica killed, then ${LOAD_SECONDS} s of pay-ins at ${LOAD_RATE}/s`, () => killThenLoad({ stack, baseUrl, demo, sinkUrl }));
    const proof = await timed('verify nothing lost or duplicated (status reads, balance, callbacks, money audit)', () => verifyNothingLost({ stack, baseUrl, demo, sink, load }));
    check(sink.rejected() === 0, `${sink.rejected()} callbacks failed signature verification`);
    say(`${proof.confirmed} pay-ins completed, balance +${proof.expected} minor units as expected, ${sink.verified.length} callbacks verified, money audit: ${proof.audit}`);
    for (const line of takeoverFigures(load)) say(`takeover: ${line}`);
    await timed('graceful stop: every service exits 0 on SIGTERM (compose stop)', async () => {
      const services = LONG_RUNNING.filter((service) => !['postgres', 'kafka'].includes(service));
      // The killed replicas stay down (`docker kill` is an operator's stop, which the restart policy respects).
      const killed = new Set(load.kills.map(({ container }) => container));
      const containers = (await Promise.all(services.map(async (service) => (await stack.containers(service)).map((id) => ({ service, id }))))).flat().filter(({ id }) => !killed.has(id));
      await stack.run(['stop', '-t', '30', ...services], { quiet: true });
      const unclean = containers.map(({ service, id }) => ({ service, id, exitCode: inspect(id, '{{.State.ExitCode}}') })).filter(({ exitCode }) => exitCode !== '0');
      check(unclean.length === 0, `not a clean exit on SIGTERM: ${unclean.map(({ service, id, exitCode }) => `${service} ${id.slice(0, 12)} exit ${exitCode}`).join(', ')}`);
    });
  } catch (error) {
    failure = error;
    if (stack) {
      const logs = await stack.run(['logs', '--no-color', '--tail', '30'], { quiet: true, allowFailure: true });
      console.error(logs.output);
    }
  } finally {
    await sink?.stop();
    if (stack && !(failure && process.env.COMPOSE_SMOKE_KEEP === '1')) await timed('compose down -v', () => stack.withProfiles(['down', '-v', '--remove-orphans'], { quiet: true, allowFailure: true }));
    rmSync(workDir, { recursive: true, force: true });
    if (docker.startedEngine && docker.script) await run('bash', [docker.script, '--stop'], { quiet: true, allowFailure: true });
  }
  say('timings:');
  for (const [step, seconds] of timings) say(`  ${step.padEnd(90)} ${seconds.toFixed(1)} s`);
  say(`total ${((Date.now() - startedAt) / 1000).toFixed(1)} s`);
  if (failure) {
    say(`FAILED: ${failure instanceof Error ? failure.message : failure}`);
    if (!(failure instanceof SmokeFailure)) console.error(failure);
    return 1;
  }
  say('passed');
  return 0;
}

process.exit(await main());
