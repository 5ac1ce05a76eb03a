/**
 * The demo of a container deployment (the compose `demo` service): a merchant, an operator and
 * an agent serving the merchant's methods, printed with the URLs and a first walk-through, as
 * `npm start` prints them. It runs once the gateway answers, because the agent is made through
 * the back-office API (payments owns agents).
 *
 *   node dist/apps/ops/src/demo.js
 *
 * GATEWAY_DATABASE_URL and MERCHANT_SECRETS_MASTER_KEY (with _VERSION and _RETIRED_KEYS after a
 * rotation): where the merchant and operator are
 * stored (as `npm run merchant:create` does). GATEWAY_URL: the gateway as this container reaches
 * it. PUBLIC_BASE_URL: the gateway as the reader of the banner reaches it. DEMO_STATE_FILE
 * (mode 600): the credentials, made once and shown again on every later run, so a restarted
 * stack prints the same ones; `docker compose down -v` removes it with the databases.
 * `--json` prints the credentials as one JSON line instead (for scripts: the compose smoke test).
 * `--no-save` makes fresh ones and keeps no state file: `npm start` (deploy/local/start.mjs) runs
 * it that way and keeps them in its own files, per development database. This command is the one
 * place demo data is made.
 */
import 'reflect-metadata';
import { SecretBox } from '@mp/access-domain';
import { createOperatorByCommand, MerchantCredentialStore } from '@mp/access-infrastructure';
import { GATEWAY_MIGRATIONS, readOperatorCredentialLifetime } from '@mp/gateway-api';
import { ConfigError, ConfigReader, parseCommandLine } from '@mp/shared-util-config';
import { readMasterKeyring, type SecretKeyring } from '@mp/shared-util-secret-box';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { DataSource } from 'typeorm';

interface DemoCredentials {
  merchant_id: string;
  merchant_name: string;
  api_secret: string;
  webhook_secret: string;
  operator_token: string;
  operator_credential_id: string;
  operator_id: string | null;
  operator_expires_at: string | null;
  agent_id: string;
  agent_name: string;
  agent_token: string;
  /** A console key for the merchant's staff (what they type to sign in to the console). */
  console_key_id: string;
  console_key: string;
  console_key_expires_at: string;
}

interface DemoConfig {
  databaseUrl: string;
  /** MERCHANT_SECRETS_MASTER_KEY with its version (and retired keys): seals as the gateway does. */
  keyring: SecretKeyring;
  gatewayUrl: string;
  publicBaseUrl: string;
  stateFile: string;
  callbackUrl: string;
  operatorCredentialLifetimeDays: number;
}

function readDemoConfig(): DemoConfig {
  const reader = new ConfigReader(process.env);
  const config = {
    databaseUrl: reader.url('GATEWAY_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'] }),
    keyring: readMasterKeyring(reader, 'MERCHANT_SECRETS'),
    gatewayUrl: reader.url('GATEWAY_URL', { default: 'http://gateway:3000' }),
    publicBaseUrl: reader.url('PUBLIC_BASE_URL', { default: 'http://127.0.0.1:3000' }),
    stateFile: reader.string('DEMO_STATE_FILE', { default: '/var/lib/merchant-payments-demo/demo.json' }),
    callbackUrl: reader.url('DEMO_CALLBACK_URL', { default: 'https://shop.example/callbacks' }),
    ...readOperatorCredentialLifetime(reader),
  };
  reader.assertValid();
  return config;
}

async function backoffice<T>(config: DemoConfig, token: string, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`${config.gatewayUrl}/backoffice/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const answer = (await response.json()) as T;
  if (!response.ok) throw new Error(`${method} ${path} failed: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

async function createDemo(config: DemoConfig): Promise<DemoCredentials> {
  const dataSource = new DataSource({ type: 'postgres', url: config.databaseUrl, migrations: GATEWAY_MIGRATIONS, migrationsTransactionMode: 'each' });
  await dataSource.initialize();
  let merchant;
  let operator;
  try {
    await dataSource.runMigrations();
    merchant = await new MerchantCredentialStore(dataSource, new SecretBox(config.keyring), 0).createMerchant('Demo shop', config.callbackUrl);
    operator = await createOperatorByCommand(dataSource, 'Demo operator', {
      lifetimeDays: config.operatorCredentialLifetimeDays,
      command: { id: 'demo', name: 'the demo command' },
    });
  } finally {
    await dataSource.destroy();
  }
  // An agent serving every method the merchant has, so any demo order finds someone to take it.
  const methods = await backoffice<{ data: Array<{ method: string; country: string; currency: string }> }>(
    config,
    operator.token,
    'GET',
    `/merchants/${merchant.merchantId}/methods`,
  );
  const areas = new Map(methods.data.map(({ method, country, currency }) => [`${method}:${country}:${currency}`, { method, country, currency }]));
  const agent = await backoffice<{ agent_id: string; name: string; token: string }>(config, operator.token, 'POST', '/agents', {
    display_name: 'Demo agent',
    payment_details: 'Card 2200 0000 0000 0000, Demo Bank, holder I. Petrov',
    serves: [...areas.values()],
  });
  const consoleKey = await backoffice<{ key_id: string; console_key: string; expires_at: string }>(
    config,
    operator.token,
    'POST',
    `/merchants/${merchant.merchantId}/console-keys`,
    {},
  );
  return {
    merchant_id: merchant.merchantId,
    merchant_name: merchant.name,
    api_secret: merchant.apiSecret,
    webhook_secret: merchant.webhookSecret,
    operator_token: operator.token,
    operator_credential_id: operator.credentialId,
    operator_id: operator.operatorId ?? null,
    operator_expires_at: operator.expiresAt?.toISOString() ?? null,
    agent_id: agent.agent_id,
    agent_name: agent.name,
    agent_token: agent.token,
    console_key_id: consoleKey.key_id,
    console_key: consoleKey.console_key,
    console_key_expires_at: consoleKey.expires_at,
  };
}

function banner(config: DemoConfig, demo: DemoCredentials): string {
  const base = config.publicBaseUrl.replace(/\/$/, '');
  const orderId = `demo-${Date.now().toString(36)}`;
  const asMerchant = `MP_BASE_URL=${base} MP_MERCHANT_ID=${demo.merchant_id} MP_API_SECRET=${demo.api_secret}`;
  return `
================================================================================
 Merchant payments is running in containers

   API (/v2)          ${base}/v2
   payer pages        ${base}/pay/...
   back office        ${base}/backoffice/v1   (Authorization: Bearer <token>)

 Demo credentials: they exist only in this deployment's database and in the volume of the
 demo service (${config.stateFile}, mode 600). Not for production.
   merchant x-api-key ${demo.merchant_id}
   API secret         ${demo.api_secret}
   webhook secret     ${demo.webhook_secret}
   operator token     ${demo.operator_token}
   agent token        ${demo.agent_token}

 Try it from a clone of the repository (npm ci once): a pay-in, the agent confirms, the balance
   ${asMerchant} npm run request -- POST /v2/payments/incoming '{"order_id":"${orderId}","amount":1500.50,"currency":"RUB","country":"RU","callback_url":"https://shop.example/callbacks"}'
   MP_BASE_URL=${base} BACKOFFICE_TOKEN=${demo.agent_token} npm run backoffice -- --as-agent confirm ${demo.merchant_id} ${orderId}
   ${asMerchant} npm run request -- GET /v2/payments/status/${orderId}
   ${asMerchant} npm run request -- GET /v2/merchant/balances
================================================================================
`;
}

async function main(): Promise<void> {
  const { values } = parseCommandLine({ options: { json: { type: 'boolean', default: false }, 'no-save': { type: 'boolean', default: false } } });
  const config = readDemoConfig();
  let demo: DemoCredentials;
  if (values['no-save']) {
    demo = await createDemo(config);
  } else if (existsSync(config.stateFile)) {
    demo = JSON.parse(readFileSync(config.stateFile, 'utf8')) as DemoCredentials;
  } else {
    demo = await createDemo(config);
    mkdirSync(dirname(config.stateFile), { recursive: true });
    writeFileSync(config.stateFile, JSON.stringify(demo, null, 2), { mode: 0o600 });
    chmodSync(config.stateFile, 0o600);
  }
  console.log(values.json ? JSON.stringify(demo) : banner(config, demo));
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : `[demo] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(error instanceof ConfigError ? 2 : 1);
});
