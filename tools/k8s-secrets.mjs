#!/usr/bin/env node
/**
 * Creates, checks and rotates every Secret the prod Kubernetes overlay reads that is not made by
 * an operator (docs/operations/kubernetes.md, "Secrets"): one command for the first install, for
 * each later run (it changes nothing that is in place: idempotent) and for rotations.
 *
 *   npm run k8s:secrets                               make the missing Secrets, keep the others
 *   npm run k8s:secrets -- --rotate ledger-database   a new password for that role (CloudNativePG sets it on the role)
 *   npm run k8s:secrets -- --rotate gateway-service-token   one step of a token key's rotation (three runs)
 *   npm run k8s:secrets -- --print                    the Secrets as YAML on stdout instead of applying them
 *   options: --namespace <ns> (merchant-payments), --context <kube context>
 *
 * It reads the Secrets in place with kubectl, keeps every value that is there, makes the missing
 * ones (the same generators as tools/generate-secrets.mjs), and applies the whole set with
 * `kubectl apply -f -`. It prints names, never values, and then which Deployments to restart.
 * The master keys are made once and never rotated here: a new master key must re-seal what the
 * old one sealed (docs/operations/master-key-rotation.md). The backup bucket's credentials
 * (postgres-backup-s3) come from the cloud provider: only checked.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';
import { parseCommandLine } from './cli-arguments.mjs';
import { newMasterKey, newPassword } from './generate-secrets.mjs';

export const SERVICES = ['gateway', 'payments', 'ledger', 'withdrawals', 'disputes', 'callbacks'];
/** CloudNativePG's Service of the primary, and the PgBouncer Pooler's (overlays/prod/postgres.yaml). */
const PRIMARY = 'mp-postgres-rw';
const POOLER = 'mp-postgres-pooler-rw';
const PUBLIC_KEYS = 'service-token-public-keys';
/** Made once, never rotated by this tool (the re-sealing procedure owns that). */
const MASTER_KEYS = { 'merchant-secrets-master-key': 'MERCHANT_SECRETS_MASTER_KEY', 'payments-secrets-master-key': 'PAYMENTS_SECRETS_MASTER_KEY' };
/**
 * The password of the internal listeners' keystores, which cert-manager writes with it
 * (deploy/k8s/internal-tls). Made once: it only protects the keystore inside a Secret that holds
 * the key anyway, and cert-manager writes every keystore anew at each renewal.
 */
const INTERNAL_TLS_KEYSTORE = 'internal-tls-keystore';
/** Key of a service-token Secret holding the next private key between the steps of a rotation; no service reads it. */
const NEXT_PRIVATE_KEY = 'SERVICE_TOKEN_NEXT_PRIVATE_KEY';

const databaseUrl = (role, password, host, database) => `postgres://${role}:${password}@${host}:5432/${database}`;

/** A database role's Secret (CloudNativePG reads username and password; the pods read the URLs). */
function databaseSecret(service, role, password, { migration }) {
  return {
    type: 'kubernetes.io/basic-auth',
    data: {
      username: role,
      password,
      // The migrations run straight on the primary; a service goes through the Pooler.
      DATABASE_URL: databaseUrl(role, password, migration ? PRIMARY : POOLER, service),
      // The outbox relay's LISTEN needs a session of its own: straight to the primary (overlays/prod/pooler.patch.yaml).
      ...(migration ? {} : { LISTEN_DATABASE_URL: databaseUrl(role, password, PRIMARY, service) }),
    },
  };
}

function newServiceKeyPair() {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKey: privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'),
    publicKey: publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
  };
}
/** The SPKI public key (base64 DER) of a PKCS#8 Ed25519 private key (base64 DER). */
function spkiOf(privateKeyBase64) {
  return createPublicKey(createPrivateKey({ key: Buffer.from(privateKeyBase64, 'base64'), format: 'der', type: 'pkcs8' }))
    .export({ format: 'der', type: 'spki' })
    .toString('base64');
}

/** `service:key,...` as [service, key] pairs, in order. */
const parsePublicKeys = (value) =>
  (value ?? '')
    .split(',')
    .filter(Boolean)
    .map((entry) => [entry.slice(0, entry.indexOf(':')), entry.slice(entry.indexOf(':') + 1)]);
const formatPublicKeys = (pairs) => pairs.map(([service, key]) => `${service}:${key}`).join(',');

/**
 * The Secrets to apply, from those in place (`existing`: name → decoded data) and the names to
 * rotate. Pure but for key generation, so a test can run it on any state. Returns the Secrets,
 * what happened to each (made, kept, rotated), the Deployments to restart, and refusals.
 */
export function planSecrets(existing, rotate = []) {
  const wanted = new Map();
  const actions = {};
  const restarts = new Set();
  const refused = [];
  const unknown = rotate.filter(
    (name) =>
      !SERVICES.some((service) => [`${service}-database`, `${service}-migration-database`, `${service}-service-token`].includes(name)) &&
      !(name in MASTER_KEYS),
  );
  for (const name of unknown) refused.push(`${name}: not a Secret this tool makes`);
  for (const name of rotate.filter((candidate) => candidate in MASTER_KEYS))
    refused.push(`${name}: a master key is rotated by re-sealing (docs/operations/master-key-rotation.md), not replaced`);

  for (const service of SERVICES) {
    for (const migration of [false, true]) {
      const name = migration ? `${service}-migration-database` : `${service}-database`;
      const role = migration ? `${service}_migrator` : service;
      const current = existing.get(name);
      const rotating = rotate.includes(name);
      const password = !rotating && current?.password ? current.password : newPassword();
      wanted.set(name, databaseSecret(service, role, password, { migration }));
      // 'completed': the password kept, a key added or corrected (the URLs of an older layout).
      actions[name] = rotating ? 'rotated' : current?.password ? (sameData(current, wanted.get(name).data) ? 'kept' : 'completed') : 'made';
      // The running pods hold the old password: restart them so that new connections use the new one.
      if (rotating && !migration) restarts.add(service);
    }
  }

  // Service token keys: a rotation takes three runs of --rotate <service>-service-token, the steps of docs/operations/service-keys.md.
  let publicKeys = parsePublicKeys(existing.get(PUBLIC_KEYS)?.SERVICE_TOKEN_PUBLIC_KEYS);
  for (const service of SERVICES) {
    const name = `${service}-service-token`;
    const current = existing.get(name) ?? {};
    let data = { ...current };
    let action = 'kept';
    if (!current.SERVICE_TOKEN_PRIVATE_KEY) {
      const pair = newServiceKeyPair();
      data = { SERVICE_TOKEN_PRIVATE_KEY: pair.privateKey };
      publicKeys = [...publicKeys.filter(([owner]) => owner !== service), [service, pair.publicKey]];
      action = 'made';
    } else if (rotate.includes(name)) {
      if (!current[NEXT_PRIVATE_KEY] && publicKeys.filter(([owner]) => owner === service).length === 1) {
        // Step 1: the new public key beside the old one; every service must learn it before anything signs with it.
        const pair = newServiceKeyPair();
        data = { ...current, [NEXT_PRIVATE_KEY]: pair.privateKey };
        publicKeys = [...publicKeys, [service, pair.publicKey]];
        action = 'rotated (1 of 3: new public key added beside the old; restart every Deployment, then run this again)';
        SERVICES.forEach((other) => restarts.add(other));
      } else if (current[NEXT_PRIVATE_KEY]) {
        // Step 2: the service signs with the new key; both still verify.
        data = { SERVICE_TOKEN_PRIVATE_KEY: current[NEXT_PRIVATE_KEY] };
        action = `rotated (2 of 3: ${service} signs with the new key; restart it, wait two minutes, then run this again)`;
        restarts.add(service);
      } else {
        // Step 3: only the key the service signs with stays.
        const signing = spkiOf(current.SERVICE_TOKEN_PRIVATE_KEY);
        publicKeys = publicKeys.filter(([owner, key]) => owner !== service || key === signing);
        action = 'rotated (3 of 3: the old public key removed; restart every Deployment)';
        SERVICES.forEach((other) => restarts.add(other));
      }
    }
    wanted.set(name, { type: 'Opaque', data });
    actions[name] = action;
  }
  // Every service's signing key must verify: a public key missing for one is added (a Secret made by hand, a lost entry).
  for (const service of SERVICES) {
    const current = wanted.get(`${service}-service-token`).data.SERVICE_TOKEN_PRIVATE_KEY;
    const signing = spkiOf(current);
    if (!publicKeys.some(([owner, key]) => owner === service && key === signing)) publicKeys = [...publicKeys, [service, signing]];
  }
  const publicKeysValue = formatPublicKeys(publicKeys);
  wanted.set(PUBLIC_KEYS, { type: 'Opaque', data: { SERVICE_TOKEN_PUBLIC_KEYS: publicKeysValue } });
  const publicKeysBefore = existing.get(PUBLIC_KEYS)?.SERVICE_TOKEN_PUBLIC_KEYS;
  actions[PUBLIC_KEYS] = publicKeysBefore === undefined ? 'made' : publicKeysBefore === publicKeysValue ? 'kept' : 'changed';

  for (const [name, key] of Object.entries(MASTER_KEYS)) {
    const current = existing.get(name);
    // The whole Secret is kept as it is: during a rotation it holds the version and the retired or next keys too.
    wanted.set(name, { type: 'Opaque', data: current?.[key] ? current : { [key]: newMasterKey() } });
    actions[name] = current?.[key] ? 'kept' : 'made';
  }
  const keystorePassword = existing.get(INTERNAL_TLS_KEYSTORE)?.password;
  wanted.set(INTERNAL_TLS_KEYSTORE, { type: 'Opaque', data: { password: keystorePassword ?? newPassword() } });
  actions[INTERNAL_TLS_KEYSTORE] = keystorePassword ? 'kept' : 'made';
  return { secrets: wanted, actions, restarts: [...restarts], refused };
}

const sameData = (left, right) => JSON.stringify(Object.entries(left).sort()) === JSON.stringify(Object.entries(right).sort());

/** The Secrets as Kubernetes manifests (values base64, as the API keeps them). */
export function manifests(secrets, namespace) {
  return [...secrets].map(([name, { type, data }]) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name, namespace, labels: { 'app.kubernetes.io/part-of': 'merchant-payments', 'app.kubernetes.io/managed-by': 'k8s-secrets' } },
    type,
    data: Object.fromEntries(Object.entries(data).map(([key, value]) => [key, Buffer.from(value).toString('base64')])),
  }));
}

/** The Secrets in place among `names`, decoded: name → data. */
function readExisting(kubectl, names) {
  const list = JSON.parse(kubectl(['get', 'secret', ...names, '--ignore-not-found', '-o', 'json']) || '{"items":[]}');
  const items = list.kind === 'List' || list.items ? list.items : [list];
  return new Map(
    items.map((secret) => [
      secret.metadata.name,
      Object.fromEntries(Object.entries(secret.data ?? {}).map(([key, value]) => [key, Buffer.from(value, 'base64').toString()])),
    ]),
  );
}

const USAGE = 'usage: node tools/k8s-secrets.mjs [--namespace <ns>] [--context <context>] [--rotate <secret>]... [--print]';

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { values } = parseCommandLine(
    {
      options: {
        namespace: { type: 'string', default: 'merchant-payments' },
        context: { type: 'string' },
        rotate: { type: 'string', multiple: true, default: [] },
        print: { type: 'boolean', default: false },
      },
    },
    USAGE,
  );
  const kubectl = (args, input) =>
    execFileSync('kubectl', [...(values.context ? ['--context', values.context] : []), '-n', values.namespace, ...args], {
      encoding: 'utf8',
      input,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
  const names = [
    ...SERVICES.flatMap((service) => [`${service}-database`, `${service}-migration-database`, `${service}-service-token`]),
    PUBLIC_KEYS,
    ...Object.keys(MASTER_KEYS),
    INTERNAL_TLS_KEYSTORE,
  ];
  const existing = readExisting(kubectl, names);
  const { secrets, actions, restarts, refused } = planSecrets(existing, values.rotate);
  if (refused.length > 0) {
    console.error(`refused, nothing applied:\n  ${refused.join('\n  ')}`);
    process.exit(2);
  }
  const documents = manifests(secrets, values.namespace);
  if (values.print) {
    process.stdout.write(documents.map((document) => YAML.stringify(document)).join('---\n'));
  } else {
    kubectl(['apply', '-f', '-'], JSON.stringify({ apiVersion: 'v1', kind: 'List', items: documents }));
    for (const [name, action] of Object.entries(actions)) console.log(`${name}: ${action}`);
    if (readExisting(kubectl, ['postgres-backup-s3']).size === 0)
      console.log('postgres-backup-s3: missing (the backup bucket credentials, from the cloud provider: ACCESS_KEY_ID, SECRET_ACCESS_KEY)');
    if (restarts.length > 0) console.log(`now: kubectl -n ${values.namespace} rollout restart ${restarts.map((service) => `deployment/${service}`).join(' ')}`);
  }
}
