#!/usr/bin/env node
/**
 * The start command (npm start): the whole system on this machine.
 *
 * 1. Kafka and PostgreSQL: started from deploy/local/infra.mjs (dev mode, state kept in
 *    .local/dev) unless KAFKA_BROKERS / DATABASE_URL (or GATEWAY_DATABASE_URL,
 *    PAYMENTS_DATABASE_URL and LEDGER_DATABASE_URL) point at running ones, in which case
 *    nothing is started.
 * 2. The ledger, the payments service and the gateway, as separate processes, with output
 *    prefixed.
 * 3. A demo merchant, a demo operator and a demo agent serving every default method (created
 *    once, kept in .local/dev/{demo-merchant,operator,agent}.json), whose credentials are
 *    printed with the URLs and a first walk-through to try.
 * Ctrl-C stops everything it started.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDatabases, startKafka, startPostgres } from './infra.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');
if (!existsSync(join(root, 'node_modules/.bin/tsc'))) {
  // A fresh clone: say what to do instead of failing on a missing binary.
  console.error('[start] dependencies are not installed: run `npm install` first');
  process.exit(1);
}
const devDir = join(root, '.local/dev');
mkdirSync(devDir, { recursive: true });
const gatewayPort = Number(process.env.GATEWAY_HTTP_PORT ?? 3000);
const paymentsPort = Number(process.env.PAYMENTS_HTTP_PORT ?? 3001);
const ledgerPort = Number(process.env.LEDGER_HTTP_PORT ?? 3002);
const ledgerUrl = `http://127.0.0.1:${ledgerPort}`;
const callbacksPort = Number(process.env.CALLBACKS_HTTP_PORT ?? 3003);
const callbacksUrl = `http://127.0.0.1:${callbacksPort}`;
const gatewayInternalPort = Number(process.env.GATEWAY_INTERNAL_HTTP_PORT ?? 3010);
// The gateway's internal listener and the callback dispatcher share it; a new one per start.
const internalServiceToken = randomBytes(24).toString('hex');
const paymentsUrl = `http://127.0.0.1:${paymentsPort}`;
const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
const started = [];
const children = [];
const say = (line) => console.log(`[start] ${line}`);

async function infrastructure() {
  let kafkaBrokers = process.env.KAFKA_BROKERS;
  if (kafkaBrokers) say(`using Kafka at ${kafkaBrokers} (KAFKA_BROKERS is set)`);
  else {
    const kafka = await startKafka({ mode: 'dev' });
    started.push(kafka);
    kafkaBrokers = kafka.brokers;
  }

  let databaseUrls;
  if (process.env.GATEWAY_DATABASE_URL && process.env.PAYMENTS_DATABASE_URL && process.env.LEDGER_DATABASE_URL && process.env.CALLBACKS_DATABASE_URL) {
    say('using GATEWAY_DATABASE_URL, PAYMENTS_DATABASE_URL, LEDGER_DATABASE_URL and CALLBACKS_DATABASE_URL as set');
    databaseUrls = { gateway: process.env.GATEWAY_DATABASE_URL, payments: process.env.PAYMENTS_DATABASE_URL, ledger: process.env.LEDGER_DATABASE_URL, callbacks: process.env.CALLBACKS_DATABASE_URL };
  } else {
    let serverUrl = process.env.DATABASE_URL;
    if (serverUrl) say('using the PostgreSQL server of DATABASE_URL, one database per service');
    else {
      const postgres = await startPostgres({ mode: 'dev' });
      started.push(postgres);
      serverUrl = postgres.adminUrl;
    }
    await ensureDatabases(serverUrl, ['gateway', 'payments', 'ledger', 'callbacks']);
    databaseUrls = { gateway: withDatabase(serverUrl, 'gateway'), payments: withDatabase(serverUrl, 'payments'), ledger: withDatabase(serverUrl, 'ledger'), callbacks: withDatabase(serverUrl, 'callbacks') };
  }
  return { kafkaBrokers, databaseUrls };
}

function withDatabase(serverUrl, database) {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
}

/** A master key for merchant secrets, generated once for this machine's dev state. */
function masterKey() {
  if (process.env.MERCHANT_SECRETS_MASTER_KEY) return process.env.MERCHANT_SECRETS_MASTER_KEY;
  const file = join(devDir, 'master.key');
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64'), { mode: 0o600 });
  return readFileSync(file, 'utf8').trim();
}

function startService(name, entry, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'tools/run-ts.js'), entry], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    const prefix = (stream) => {
      let buffer = '';
      stream.on('data', (chunk) => {
        buffer += chunk.toString('utf8');
        const lines = buffer.split('\n');
        buffer = lines.pop();
        for (const line of lines) {
          console.log(`[${name}] ${line}`);
          if (line.includes(`${name} ready`)) resolve();
        }
      });
    };
    prefix(child.stdout);
    prefix(child.stderr);
    child.on('exit', (code) => reject(new Error(`${name} exited with code ${code} during start-up; see its output above`)));
  });
}

function runCli(entry, args, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [join(root, 'tools/run-ts.js'), entry, ...args], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`${entry} exited with ${code}`))));
  });
}

/** Credentials made once per dev database and saved; made again when the database changed. */
async function savedOnce(fileName, databaseUrl, create) {
  const file = join(devDir, fileName);
  if (existsSync(file)) {
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    if (saved.database_url === databaseUrl) return saved;
  }
  const made = { ...(await create()), base_url: gatewayUrl, database_url: databaseUrl };
  writeFileSync(file, JSON.stringify(made, null, 2), { mode: 0o600 });
  return made;
}

/** A bootstrap command's JSON answer (its last line), made once per dev database. */
function savedCommandOutput(fileName, entry, args, gatewayEnv) {
  return savedOnce(fileName, gatewayEnv.GATEWAY_DATABASE_URL, async () => JSON.parse((await runCli(entry, [...args, '--json'], gatewayEnv)).trim().split('\n').pop()));
}

async function backoffice(operator, method, path, body) {
  const response = await fetch(`${gatewayUrl}/backoffice/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${operator.token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = await response.json();
  if (!response.ok) throw new Error(`${method} ${path} failed: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

/** An agent serving every method the demo merchant has, so any demo order finds someone to take it. */
function demoAgent(gatewayEnv, operator, merchant) {
  return savedOnce('agent.json', gatewayEnv.GATEWAY_DATABASE_URL, async () => {
    const methods = await backoffice(operator, 'GET', `/merchants/${merchant.merchant_id}/methods`);
    const areas = new Map(methods.data.map(({ method, country, currency }) => [`${method}:${country}:${currency}`, { method, country, currency }]));
    const agent = await backoffice(operator, 'POST', '/agents', { display_name: 'Demo agent', payment_details: 'Card 2200 0000 0000 0000, Demo Bank, holder I. Petrov', serves: [...areas.values()] });
    return { agent_id: agent.agent_id, name: agent.name, token: agent.token };
  });
}

async function stopAll(code) {
  for (const child of children) child.kill('SIGTERM');
  await Promise.all(children.map((child) => new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('exit', resolve)))));
  for (const service of started.reverse()) await service.stop().catch(() => undefined);
  process.exit(code);
}

process.on('SIGINT', () => stopAll(0));
process.on('SIGTERM', () => stopAll(0));

try {
  const startedAt = Date.now();
  const { kafkaBrokers, databaseUrls } = await infrastructure();
  const common = { KAFKA_BROKERS: kafkaBrokers, PUBLIC_BASE_URL: gatewayUrl };
  // Where this running system lives, for the local tools (npm run ledger:audit) to find it.
  writeFileSync(join(devDir, 'endpoints.json'), JSON.stringify({ kafka_brokers: kafkaBrokers, database_urls: databaseUrls, gateway_url: gatewayUrl }, null, 2), { mode: 0o600 });
  // The ledger first: payments places payout holds on it, the gateway reads balances from it.
  say('starting the ledger');
  await startService('ledger', 'apps/ledger/src/main.ts', { ...common, LEDGER_HTTP_PORT: String(ledgerPort), LEDGER_DATABASE_URL: databaseUrls.ledger, PAYMENTS_INTERNAL_URL: paymentsUrl });
  say('starting the payments service');
  await startService('payments', 'apps/payments/src/main.ts', { ...common, PAYMENTS_HTTP_PORT: String(paymentsPort), PAYMENTS_DATABASE_URL: databaseUrls.payments, LEDGER_INTERNAL_URL: ledgerUrl });
  const gatewayEnv = {
    ...common,
    GATEWAY_HTTP_PORT: String(gatewayPort),
    GATEWAY_DATABASE_URL: databaseUrls.gateway,
    MERCHANT_SECRETS_MASTER_KEY: masterKey(),
    PAYMENTS_INTERNAL_URL: paymentsUrl,
    LEDGER_INTERNAL_URL: ledgerUrl,
    CALLBACKS_INTERNAL_URL: callbacksUrl,
    GATEWAY_INTERNAL_HTTP_PORT: String(gatewayInternalPort),
    INTERNAL_SERVICE_TOKEN: internalServiceToken,
  };
  say('starting the gateway');
  await startService('gateway', 'apps/gateway/src/main.ts', gatewayEnv);
  say('starting the callback dispatcher');
  await startService('callback dispatcher', 'apps/callback-dispatcher/src/main.ts', {
    ...common,
    CALLBACKS_HTTP_PORT: String(callbacksPort),
    CALLBACKS_DATABASE_URL: databaseUrls.callbacks,
    GATEWAY_INTERNAL_URL: `http://127.0.0.1:${gatewayInternalPort}`,
    INTERNAL_SERVICE_TOKEN: internalServiceToken,
  });
  const merchant = await savedCommandOutput('demo-merchant.json', 'apps/gateway/src/create-merchant.ts', ['--name', 'Demo shop'], gatewayEnv);
  const operator = await savedCommandOutput('operator.json', 'apps/gateway/src/create-operator.ts', ['--name', 'Demo operator'], gatewayEnv);
  const agent = await demoAgent(gatewayEnv, operator, merchant);
  const orderId = `demo-${Date.now().toString(36)}`;
  console.log(`
================================================================================
 Merchant payments is running (started in ${((Date.now() - startedAt) / 1000).toFixed(1)} s)

   API (/v2)          ${gatewayUrl}/v2
   back office        ${gatewayUrl}/backoffice/v1   (Authorization: Bearer <token>)
   payments internal  ${paymentsUrl}
   ledger internal    ${ledgerUrl}
   callbacks internal ${callbacksUrl}   (delivery log: npm run backoffice -- callbacks <merchant_id> <order_id>)
   Kafka              ${kafkaBrokers}

 Demo merchant (saved in .local/dev/demo-merchant.json):
   x-api-key          ${merchant.merchant_id}
   API secret         ${merchant.api_secret}
   webhook secret     ${merchant.webhook_secret}

 Demo operator token  ${operator.token}   (.local/dev/operator.json)
 Demo agent token     ${agent.token}   (.local/dev/agent.json)

 Try it (in another terminal): a pay-in, its payer page, the agent confirms, the balance moves
   npm run request -- POST /v2/payments/incoming '{"order_id":"${orderId}","amount":1500.50,"currency":"RUB","country":"RU","callback_url":"https://shop.example/callbacks"}'
   (open its redirect_url in a browser and press "I have paid")
   npm run backoffice -- --as-agent confirm ${merchant.merchant_id} ${orderId}
   npm run request -- GET /v2/payments/status/${orderId}
   npm run request -- GET /v2/merchant/balances

 Ctrl-C stops everything.
================================================================================
`);
} catch (error) {
  console.error(`[start] ${error instanceof Error ? error.message : error}`);
  await stopAll(1);
}
