#!/usr/bin/env node
/**
 * Makes the secrets a deployment needs, fresh on this machine, so that nobody runs on a value
 * published in this repository (docs/operations/secrets.md):
 *
 *   npm run secrets:generate                 .env for docker-compose.yml: .env.example with every
 *                                            blank secret filled (refuses to replace an existing .env)
 *   npm run secrets:generate -- --force      the same, replacing .env (new keys: existing data
 *                                            sealed with the old master keys becomes unreadable)
 *   npm run k8s:dev-secrets                  the dev overlay's Secrets, one env file each, in
 *                                            deploy/k8s/overlays/dev/.dev-secrets/ (kept when there)
 *
 * Passwords are 24 random bytes in hex (they go into database URLs unescaped, and into Kafka's
 * JAAS lines); master keys 32 random bytes in base64; each service an Ed25519 key pair (base64
 * DER). The compose smoke test makes its own with the same functions.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from './cli-arguments.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const SERVICES = ['gateway', 'payments', 'ledger', 'withdrawals', 'disputes', 'callbacks'];
/**
 * The dead-letter replay principals, one per catalog topic (replayPrincipalOf in
 * libs/shared/messaging/src/kafka/kafka-access.ts): dlq-replay-payments-commands, …
 */
const REPLAY_USERS = JSON.parse(readFileSync(join(root, 'deploy/catalog/services.json'), 'utf8'))
  .topics.map(({ name }) => name)
  .filter((name) => !name.includes('<'))
  .map((topic) => `dlq-replay-${topic.replaceAll('.', '-')}`);
const kafkaPasswordVariable = (user) => `${user.toUpperCase().replaceAll('-', '_')}_KAFKA_PASSWORD`;

export const newPassword = () => randomBytes(24).toString('hex');
export const newMasterKey = () => randomBytes(32).toString('base64');

/** A fresh Ed25519 key pair per service: <SERVICE>_SERVICE_TOKEN_PRIVATE_KEY each, and SERVICE_TOKEN_PUBLIC_KEYS. */
export function serviceTokenKeys() {
  const values = {};
  const publicKeys = [];
  for (const service of SERVICES) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    values[`${service.toUpperCase()}_SERVICE_TOKEN_PRIVATE_KEY`] = privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64');
    publicKeys.push(`${service}:${publicKey.export({ format: 'der', type: 'spki' }).toString('base64')}`);
  }
  return { ...values, SERVICE_TOKEN_PUBLIC_KEYS: publicKeys.join(',') };
}

/** Every secret of docker-compose.yml (the blank ones of .env.example), fresh. */
export function composeSecrets() {
  const passwords = Object.fromEntries(
    [
      'POSTGRES_PASSWORD',
      ...SERVICES.map((service) => `${service.toUpperCase()}_DB_PASSWORD`),
      ...SERVICES.map((service) => `${service.toUpperCase()}_MIGRATION_DB_PASSWORD`),
      'KAFKA_ADMIN_PASSWORD',
      ...SERVICES.map((service) => `${service.toUpperCase()}_KAFKA_PASSWORD`),
      ...REPLAY_USERS.map(kafkaPasswordVariable),
    ].map((name) => [name, newPassword()]),
  );
  return { ...passwords, MERCHANT_SECRETS_MASTER_KEY: newMasterKey(), PAYMENTS_SECRETS_MASTER_KEY: newMasterKey(), ...serviceTokenKeys() };
}

/** `.env.example` with each blank secret set: the other settings keep their documented defaults. */
export function composeEnvFile(secrets = composeSecrets()) {
  const example = readFileSync(join(root, '.env.example'), 'utf8');
  return example.replace(/^([A-Z0-9_]+)=$/gm, (line, name) => (name in secrets ? `${name}=${secrets[name]}` : line));
}

/** The dev overlay's Secrets (deploy/k8s/overlays/dev/kustomization.yaml), as env files by Secret name. */
export function devOverlaySecrets() {
  const secrets = composeSecrets();
  const files = {};
  const database = (role, password, name) => `postgres://${role}:${password}@postgres:5432/${name}`;
  files['postgres-admin'] = { POSTGRES_PASSWORD: secrets.POSTGRES_PASSWORD, POSTGRES_ADMIN_URL: database('postgres', secrets.POSTGRES_PASSWORD, 'postgres') };
  for (const service of SERVICES) {
    const upper = service.toUpperCase();
    files[`${service}-database`] = { DATABASE_URL: database(service, secrets[`${upper}_DB_PASSWORD`], service) };
    files[`${service}-migration-database`] = { DATABASE_URL: database(`${service}_migrator`, secrets[`${upper}_MIGRATION_DB_PASSWORD`], service) };
    files[`${service}-service-token`] = { SERVICE_TOKEN_PRIVATE_KEY: secrets[`${upper}_SERVICE_TOKEN_PRIVATE_KEY`] };
    // The Secret Strimzi's User Operator makes for a KafkaUser in prod has this name and key.
    files[service] = { password: secrets[`${upper}_KAFKA_PASSWORD`] };
  }
  files['merchant-secrets-master-key'] = { MERCHANT_SECRETS_MASTER_KEY: secrets.MERCHANT_SECRETS_MASTER_KEY };
  files['payments-secrets-master-key'] = { PAYMENTS_SECRETS_MASTER_KEY: secrets.PAYMENTS_SECRETS_MASTER_KEY };
  files['service-token-public-keys'] = { SERVICE_TOKEN_PUBLIC_KEYS: secrets.SERVICE_TOKEN_PUBLIC_KEYS };
  files['kafka-admin'] = { password: secrets.KAFKA_ADMIN_PASSWORD };
  for (const user of REPLAY_USERS) files[user] = { password: secrets[kafkaPasswordVariable(user)] };
  return files;
}

export const DEV_SECRETS_DIR = join(root, 'deploy/k8s/overlays/dev/.dev-secrets');

/** Writes the dev overlay's env files unless a complete set is there already (applying again then changes no Secret). */
export function ensureDevOverlaySecrets() {
  const files = devOverlaySecrets();
  if (Object.keys(files).every((name) => existsSync(join(DEV_SECRETS_DIR, `${name}.env`)))) return { made: false, dir: DEV_SECRETS_DIR };
  mkdirSync(DEV_SECRETS_DIR, { recursive: true, mode: 0o700 });
  for (const [name, values] of Object.entries(files)) {
    writeFileSync(
      join(DEV_SECRETS_DIR, `${name}.env`),
      Object.entries(values)
        .map(([key, value]) => `${key}=${value}`)
        .join('\n') + '\n',
      { mode: 0o600 },
    );
  }
  return { made: true, dir: DEV_SECRETS_DIR };
}

const USAGE = 'usage: node tools/generate-secrets.mjs [--force] | --k8s-dev';

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseCommandLine({ options: { force: { type: 'boolean', default: false }, 'k8s-dev': { type: 'boolean', default: false } } }, USAGE);
  if (values['k8s-dev']) {
    const { made, dir } = ensureDevOverlaySecrets();
    console.log(`dev overlay secrets ${made ? 'made' : 'kept'}: ${relative(root, dir)}`);
  } else {
    const target = join(root, '.env');
    if (existsSync(target) && !values.force) {
      console.error('.env exists already: its keys seal data that new ones could not read. Pass --force to replace it anyway.');
      process.exit(1);
    }
    writeFileSync(target, composeEnvFile(), { mode: 0o600 });
    console.log('wrote .env with fresh secrets (mode 600); docker compose up reads it');
  }
}
