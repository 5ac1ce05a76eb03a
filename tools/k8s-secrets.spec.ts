/**
 * Goal: `npm run k8s:secrets` (tools/k8s-secrets.mjs) gives prod every Secret its workloads and
 * CloudNativePG's roles read that no operator makes, with the keys they read; a second run changes
 * nothing; --rotate changes only what it names, a database password in one run and a service's
 * token key in the three steps of docs/operations/service-keys.md, and refuses a master key.
 * Method: the tool's planSecrets, run in a node child (the tool is an ES module) on a given
 * state of the cluster; the prod overlay rendered with kubectl kustomize for what it reads.
 */
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { join, resolve } from 'node:path';
import YAML from 'yaml';

type SecretData = Record<string, string>;
interface Plan {
  secrets: Record<string, { type: string; data: SecretData }>;
  actions: Record<string, string>;
  restarts: string[];
  refused: string[];
}

const repositoryRoot = resolve(__dirname, '..');

/** planSecrets on this state of the cluster (name → decoded data). */
function plan(existing: Record<string, SecretData>, rotate: string[] = []): Plan {
  const script = `
    import { planSecrets } from ${JSON.stringify(join(repositoryRoot, 'tools/k8s-secrets.mjs'))};
    const { existing, rotate } = JSON.parse(await new Promise((done) => { let text = ''; process.stdin.on('data', (chunk) => (text += chunk)).on('end', () => done(text)); }));
    const result = planSecrets(new Map(Object.entries(existing)), rotate);
    console.log(JSON.stringify({ ...result, secrets: Object.fromEntries(result.secrets) }));`;
  return JSON.parse(
    execFileSync(process.execPath, ['--input-type=module', '-e', script], { input: JSON.stringify({ existing, rotate }), encoding: 'utf8' }),
  ) as Plan;
}
const dataOf = (result: Plan) => Object.fromEntries(Object.entries(result.secrets).map(([name, { data }]) => [name, data]));
const publicKeyOf = (privateKey: string) =>
  createPublicKey(createPrivateKey({ key: Buffer.from(privateKey, 'base64'), format: 'der', type: 'pkcs8' }))
    .export({ format: 'der', type: 'spki' })
    .toString('base64');
const entriesOf = (publicKeys: string, service: string) =>
  publicKeys
    .split(',')
    .filter((entry) => entry.startsWith(`${service}:`))
    .map((entry) => entry.slice(service.length + 1));

interface Workload {
  kind: string;
  metadata: { name: string };
  spec: Record<string, unknown> & {
    template?: {
      spec: {
        containers: Array<{ env?: Array<{ valueFrom?: { secretKeyRef?: { name: string; key: string } } }>; envFrom?: Array<{ secretRef?: { name: string } }> }>;
        volumes?: Array<{ secret?: { secretName: string } }>;
      };
    };
  };
}

describe('npm run k8s:secrets: the prod Secrets from one generated set', () => {
  const first = plan({});
  const made = dataOf(first);

  it("makes every Secret the prod workloads and CloudNativePG's roles read, with each key they read, except those Strimzi makes", () => {
    const resources = YAML.parseAllDocuments(
      execFileSync('kubectl', ['kustomize', join(repositoryRoot, 'deploy/k8s/overlays/prod')], { encoding: 'utf8' }),
    ).map((document) => document.toJSON() as Workload);
    // Made by Strimzi's User Operator (a KafkaUser's password) and cluster operator (its CA).
    const byStrimzi = new Set([...resources.filter((resource) => resource.kind === 'KafkaUser').map((user) => user.metadata.name), 'mp-kafka-cluster-ca-cert']);
    // Made by cert-manager: each Certificate's Secret (the internal listeners' keystores, deploy/k8s/internal-tls).
    const byCertManager = new Set(resources.filter((resource) => resource.kind === 'Certificate').map((certificate) => String(certificate.spec['secretName'])));
    expect(byCertManager.size).toBe(7);
    const references = resources
      .flatMap((workload) => (workload.spec?.template?.spec ? [workload.spec.template.spec] : []))
      .flatMap((pod) => {
        return [
          ...pod.containers.flatMap((container) =>
            (container.env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [variable.valueFrom.secretKeyRef] : [])),
          ),
          ...pod.containers.flatMap((container) =>
            (container.envFrom ?? []).flatMap((source) => (source.secretRef ? [{ name: source.secretRef.name, key: undefined }] : [])),
          ),
          ...(pod.volumes ?? []).flatMap((volume) => (volume.secret ? [{ name: volume.secret.secretName, key: undefined }] : [])),
        ];
      })
      .filter((reference) => !byStrimzi.has(reference.name) && !byCertManager.has(reference.name));
    const roles = resources
      .filter((resource) => resource.kind === 'Cluster')
      .flatMap((cluster) => (cluster.spec.managed as { roles: Array<{ name: string; passwordSecret: { name: string } }> }).roles);
    expect(references.length).toBeGreaterThan(20);
    expect(references.filter(({ name, key }) => made[name] === undefined || (key !== undefined && made[name][key] === undefined))).toEqual([]);
    expect(roles.filter(({ name, passwordSecret }) => made[passwordSecret.name]?.username !== name || !made[passwordSecret.name]?.password)).toEqual([]);
    expect(Object.values(first.actions).every((action) => action === 'made')).toBe(true);
  });

  it('points each service at the Pooler and its LISTEN connection and the migrations at the primary, with the role password', () => {
    const ledger = made['ledger-database'];
    expect({ url: ledger.DATABASE_URL, listen: ledger.LISTEN_DATABASE_URL, migration: made['ledger-migration-database'].DATABASE_URL }).toEqual({
      url: `postgres://ledger:${ledger.password}@mp-postgres-pooler-rw:5432/ledger`,
      listen: `postgres://ledger:${ledger.password}@mp-postgres-rw:5432/ledger`,
      migration: `postgres://ledger_migrator:${made['ledger-migration-database'].password}@mp-postgres-rw:5432/ledger`,
    });
    // Every service's signing key verifies with the shared public keys.
    for (const service of ['gateway', 'payments', 'ledger', 'withdrawals', 'disputes', 'callbacks']) {
      expect({ service, keys: entriesOf(made['service-token-public-keys'].SERVICE_TOKEN_PUBLIC_KEYS, service) }).toEqual({
        service,
        keys: [publicKeyOf(made[`${service}-service-token`].SERVICE_TOKEN_PRIVATE_KEY)],
      });
    }
  });

  it('changes nothing on a second run', () => {
    const second = plan(made);
    expect(dataOf(second)).toEqual(made);
    expect(new Set(Object.values(second.actions))).toEqual(new Set(['kept']));
    expect(second.restarts).toEqual([]);
  });

  it('rotates a database password: that Secret only, and says which Deployment to restart', () => {
    const rotated = plan(made, ['ledger-database']);
    const after = dataOf(rotated);
    expect(after['ledger-database'].password).not.toBe(made['ledger-database'].password);
    expect(after['ledger-database'].DATABASE_URL).toContain(`:${after['ledger-database'].password}@`);
    expect(Object.keys(after).filter((name) => JSON.stringify(after[name]) !== JSON.stringify(made[name]))).toEqual(['ledger-database']);
    expect(rotated.restarts).toEqual(['ledger']);
  });

  it("rotates a service's token key in three runs: the new public key beside the old, then signing with it, then the old one removed", () => {
    const oldPrivate = made['gateway-service-token'].SERVICE_TOKEN_PRIVATE_KEY;
    const step1 = dataOf(plan(made, ['gateway-service-token']));
    const newPrivate = step1['gateway-service-token'].SERVICE_TOKEN_NEXT_PRIVATE_KEY;
    expect({
      signing: step1['gateway-service-token'].SERVICE_TOKEN_PRIVATE_KEY,
      verifying: entriesOf(step1['service-token-public-keys'].SERVICE_TOKEN_PUBLIC_KEYS, 'gateway'),
    }).toEqual({
      signing: oldPrivate,
      verifying: [publicKeyOf(oldPrivate), publicKeyOf(newPrivate)],
    });
    const step2 = dataOf(plan(step1, ['gateway-service-token']));
    expect({ secret: step2['gateway-service-token'], verifying: entriesOf(step2['service-token-public-keys'].SERVICE_TOKEN_PUBLIC_KEYS, 'gateway') }).toEqual({
      secret: { SERVICE_TOKEN_PRIVATE_KEY: newPrivate },
      verifying: [publicKeyOf(oldPrivate), publicKeyOf(newPrivate)],
    });
    const step3 = dataOf(plan(step2, ['gateway-service-token']));
    expect(entriesOf(step3['service-token-public-keys'].SERVICE_TOKEN_PUBLIC_KEYS, 'gateway')).toEqual([publicKeyOf(newPrivate)]);
    expect(entriesOf(step3['service-token-public-keys'].SERVICE_TOKEN_PUBLIC_KEYS, 'ledger')).toEqual(
      entriesOf(made['service-token-public-keys'].SERVICE_TOKEN_PUBLIC_KEYS, 'ledger'),
    );
  });

  it('refuses to replace a master key, and a name it does not make', () => {
    const refused = plan(made, ['merchant-secrets-master-key', 'postgres-backup-s3']);
    expect(refused.refused).toEqual([
      expect.stringContaining('postgres-backup-s3: not a Secret this tool makes'),
      expect.stringContaining('merchant-secrets-master-key: a master key is rotated by re-sealing'),
    ]);
    expect(dataOf(refused)['merchant-secrets-master-key']).toEqual(made['merchant-secrets-master-key']);
  });
});
