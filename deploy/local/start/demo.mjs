// The start command's demo merchant, operator, agent and console key, and the banner that prints them.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { builtEntry } from '../../../tools/build-workspace.mjs';
import { logDir, root, shown, stateDir } from './settings.mjs';
import { readJson, writePrivate } from './state-files.mjs';
import { SERVICES, serviceEnvironment } from './service-list.mjs';

export function runCli(entry, args, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [builtEntry(entry), ...args], { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    let errors = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (errors += chunk));
    child.on('exit', (code) => (code === 0 ? resolvePromise(output) : reject(new Error(`${entry} exited with ${code}: ${errors.trim()}`))));
  });
}

/** The files npm start keeps the demo's credentials in, each with the fields of the demo command's answer it takes. */
export const DEMO_FILES = {
  'demo-merchant.json': (demo) => ({
    merchant_id: demo.merchant_id,
    name: demo.merchant_name,
    api_secret: demo.api_secret,
    webhook_secret: demo.webhook_secret,
  }),
  'operator.json': (demo) => ({
    credential_id: demo.operator_credential_id,
    operator_id: demo.operator_id,
    name: 'Demo operator',
    expires_at: demo.operator_expires_at,
    token: demo.operator_token,
  }),
  'agent.json': (demo) => ({ agent_id: demo.agent_id, name: demo.agent_name, token: demo.agent_token }),
  'console-key.json': (demo) => ({ key_id: demo.console_key_id, console_key: demo.console_key, expires_at: demo.console_key_expires_at }),
};

/**
 * The demo merchant, operator, agent (serving every method the merchant has) and console key,
 * made by the ops demo command (apps/ops/src/demo.ts, the one place demo data is made) once per
 * dev database and saved, one file each; all made again when any of them is missing or was
 * made for another database.
 */
export async function demoCredentials(system) {
  const databaseUrl = system.databaseUrls.gateway;
  const saved = Object.fromEntries(Object.keys(DEMO_FILES).map((fileName) => [fileName, readJson(join(stateDir, fileName))]));
  if (Object.values(saved).every((file) => file?.database_url === databaseUrl)) return saved;
  const gateway = SERVICES.find(({ name }) => name === 'gateway');
  const answer = await runCli('apps/ops/src/demo.ts', ['--json', '--no-save'], {
    ...serviceEnvironment(gateway, system),
    GATEWAY_URL: system.urlOf('gateway'),
  });
  const demo = JSON.parse(answer.trim().split('\n').pop());
  const made = {};
  for (const [fileName, fieldsOf] of Object.entries(DEMO_FILES)) {
    made[fileName] = { ...fieldsOf(demo), base_url: system.urlOf('gateway'), database_url: databaseUrl };
    writePrivate(join(stateDir, fileName), JSON.stringify(made[fileName], null, 2));
  }
  return made;
}

export function banner(system, { merchant, operator, agent, consoleKey, seconds }) {
  const gatewayUrl = system.urlOf('gateway');
  // Labels are padded to the URL column (19), and always keep at least one space before the URL.
  const internal = SERVICES.filter(({ name }) => name !== 'gateway').map(({ name }) => `   ${`${name} internal`.padEnd(18)} ${system.urlOf(name)}`);
  const orderId = `demo-${Date.now().toString(36)}`;
  const state = shown(stateDir);
  return `
================================================================================
 Merchant payments is running (started in ${seconds} s)

   API (/v2)          ${gatewayUrl}/v2
   back office        ${gatewayUrl}/backoffice/v1   (Authorization: Bearer <token>)
   console            ${gatewayUrl}/console/
${internal.join('\n')}
   Kafka              ${system.kafkaBrokers}
   logs (JSON lines)  ${shown(logDir)}/
   callback log       npm run backoffice -- callbacks <merchant_id> <order_id>

 Local development credentials of the demo: they exist only in this machine's development
 database, are saved readable by you alone (mode 600) in ${state}/, and are no one's real secrets.
   merchant x-api-key ${merchant.merchant_id}
   API secret         ${merchant.api_secret}
   webhook secret     ${merchant.webhook_secret}
   operator token     ${operator.token}
   agent token        ${agent.token}
   console key        ${consoleKey.console_key}

 The console (${gatewayUrl}/console/): choose a role and paste its credential
   Merchant           the console key above (operators issue more in the back office)
   Payment agent      the agent token        Operator   the operator token

 Try it (in another terminal): a pay-in, its payer page, the agent confirms, the balance moves
   npm run request -- POST /v2/payments/incoming '{"order_id":"${orderId}","amount":1500.50,"currency":"RUB","country":"RU","callback_url":"https://shop.example/callbacks"}'
   (open its redirect_url in a browser, press "Show payment details", then "I have paid")
   npm run backoffice -- --as-agent confirm ${merchant.merchant_id} ${orderId}
   npm run request -- GET /v2/payments/status/${orderId}
   npm run request -- GET /v2/merchant/balances

 A service that crashes is reported here and restarted.
 Ctrl-C stops everything: the services, Kafka and PostgreSQL.
================================================================================
`;
}
