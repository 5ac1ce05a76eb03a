/**
 * Goal: a real Kubernetes deployment can make its first operator (docs/operations/operators.md):
 * overlays/prod-bootstrap is prod plus one Job of the ops image's bootstrap command, which writes
 * the credential to a Secret (never its log), may create Secrets and nothing else, ends at once on
 * a refusal, and is the one extra pod PostgreSQL admits; overlays/prod alone has none of it, so
 * an everyday apply never runs the bootstrap again. Method: both overlays as `kubectl kustomize`
 * renders them, the NetworkPolicies evaluated for the Job's pod labels.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import YAML from 'yaml';

interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}
interface Resource {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
  rules?: Array<{ apiGroups: string[]; resources: string[]; verbs: string[] }>;
}

const root = join(__dirname, '../..');
const render = (overlay: string): Resource[] =>
  YAML.parseAllDocuments(execFileSync('kubectl', ['kustomize', join(root, 'deploy/k8s/overlays', overlay)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }))
    .map((document) => document.toJS() as Resource)
    .filter(Boolean);

function selects(selector: Selector, labels: Record<string, string>): boolean {
  const byLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const byExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) =>
    operator === 'In' ? values.includes(labels[key]) : operator === 'Exists' ? key in labels : false,
  );
  return byLabels && byExpressions;
}

/** Whether some NetworkPolicy lets a pod with `from` labels (same namespace) reach pods with `to` labels on `port`. */
function admits(resources: Resource[], from: Record<string, string>, to: Record<string, string>, port: number): boolean {
  return resources
    .filter(({ kind, spec }) => kind === 'NetworkPolicy' && selects(spec.podSelector, to))
    .some(({ spec }) =>
      (spec.ingress ?? []).some(
        (rule: { ports?: Array<{ port: number }>; from?: Array<{ podSelector?: Selector; namespaceSelector?: Selector }> }) =>
          (rule.ports ?? []).some((allowed) => allowed.port === port) &&
          (rule.from ?? []).some((peer) => peer.podSelector && !peer.namespaceSelector && selects(peer.podSelector, from)),
      ),
    );
}

describe('Kubernetes: the first operator (overlays/prod-bootstrap)', () => {
  const bootstrap = render('prod-bootstrap');
  const prod = render('prod');
  const named = (resources: Resource[], kind: string, name: string) => resources.find((resource) => resource.kind === kind && resource.metadata.name === name);
  const job = named(bootstrap, 'Job', 'bootstrap-operator') as Resource;
  const pod = job?.spec.template;
  const postgres = { 'cnpg.io/cluster': 'mp-postgres' };

  it("is prod plus the Job, its service account, role, binding and network policy, all in prod's namespace", () => {
    const key = ({ kind, metadata }: Resource) => `${kind}/${metadata.name}`;
    const added = bootstrap
      .filter((resource) => !prod.some((other) => key(other) === key(resource)))
      .map(key)
      .sort();
    expect(added).toEqual([
      'Job/bootstrap-operator',
      'NetworkPolicy/postgres-bootstrap-operator',
      'Role/bootstrap-operator',
      'RoleBinding/bootstrap-operator',
      'ServiceAccount/bootstrap-operator',
    ]);
    expect(new Set(bootstrap.filter((resource) => resource.kind !== 'Namespace').map(({ metadata }) => metadata.namespace))).toEqual(
      new Set(['merchant-payments']),
    );
  });

  it("runs the bootstrap command as the gateway runtime role, writing the credential to a Secret, with prod's ops image", () => {
    const [container] = pod.spec.containers;
    expect([...container.command, ...container.args]).toEqual([
      'node',
      '--enable-source-maps',
      'dist/apps/ops/src/bootstrap-operator.js',
      '--name',
      '$(BOOTSTRAP_OPERATOR_NAME)',
      '--secret',
      'bootstrap-operator-credential',
    ]);
    expect(container.env).toContainEqual({ name: 'GATEWAY_DATABASE_URL', valueFrom: { secretKeyRef: { name: 'gateway-database', key: 'DATABASE_URL' } } });
    // The ops Jobs are named after the ops image's tag (migrations-<tag>): found by their name label.
    const migrations = prod.find((resource) => resource.kind === 'Job' && resource.metadata.labels?.['app.kubernetes.io/name'] === 'migrations') as Resource;
    expect(container.image).toBe(migrations.spec.template.spec.containers[0].image);
    expect(job.spec.podFailurePolicy.rules).toEqual([{ action: 'FailJob', onExitCodes: { containerName: container.name, operator: 'In', values: [2, 3] } }]);
    expect(pod.spec.serviceAccountName).toBe('bootstrap-operator');
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(container.securityContext).toMatchObject({ allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } });
  });

  it('lets the Job create Secrets and nothing else', () => {
    expect(named(bootstrap, 'Role', 'bootstrap-operator')?.rules).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['create'] }]);
    expect(named(bootstrap, 'RoleBinding', 'bootstrap-operator')).toMatchObject({
      roleRef: { kind: 'Role', name: 'bootstrap-operator' },
      subjects: [{ kind: 'ServiceAccount', name: 'bootstrap-operator', namespace: 'merchant-payments' }],
    });
  });

  it('lets the Job reach PostgreSQL, which prod alone refuses it', () => {
    const labels = pod.metadata.labels as Record<string, string>;
    expect(admits(bootstrap, labels, postgres, 5432)).toBe(true);
    expect(admits(prod, labels, postgres, 5432)).toBe(false);
    // And the policy adds no other client: an arbitrary pod of the namespace is still refused.
    expect(admits(bootstrap, { 'app.kubernetes.io/name': 'debug' }, postgres, 5432)).toBe(false);
  });
});
