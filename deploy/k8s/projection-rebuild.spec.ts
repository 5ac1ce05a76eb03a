/**
 * Goal: the projection rebuild runs as a Kubernetes Job (docs/operations/projection-rebuild.md)
 * applied by hand, apart from the overlays: the ops image's rebuild command, report-only unless
 * told to switch, as the services' migration roles (whose Secrets prod names), hardened like the
 * other Jobs, and admitted to PostgreSQL by prod's policies; no overlay contains it. Method: the
 * kustomization and the prod overlay as `kubectl kustomize` renders them; validate.sh checks the
 * Job against the Kubernetes schema.
 */
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import YAML from 'yaml';

interface Resource {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  spec?: any;
}

const root = join(__dirname, '../..');
const render = (path: string): Resource[] =>
  YAML.parseAllDocuments(execFileSync('kubectl', ['kustomize', join(root, 'deploy/k8s', path)], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }))
    .map((document) => document.toJS() as Resource)
    .filter(Boolean);

describe('Kubernetes: the projection rebuild Job (deploy/k8s/jobs/projection-rebuild)', () => {
  const rendered = render('jobs/projection-rebuild');
  const prod = render('overlays/prod');
  const job = rendered.find((resource) => resource.kind === 'Job') as Resource;
  const pod = job.spec.template;
  const container = pod.spec.containers[0];

  it("is one Job in prod's namespace, running the ops image's rebuild command, and only reporting by default", () => {
    expect(rendered.map(({ kind, metadata }) => `${kind}/${metadata.name}`)).toEqual(['Job/projection-rebuild']);
    expect(job.metadata.namespace).toBe('merchant-payments');
    expect(container.image).toBe(
      prod
        .flatMap((resource) => (resource.kind === 'Job' ? resource.spec.template.spec.containers : []))
        .find((candidate: { image: string }) => candidate.image.includes('/ops:'))?.image,
    );
    expect(container.command).toEqual(['node', '--enable-source-maps', 'dist/apps/ops/src/rebuild-projection.js']);
    expect(container.args).not.toContain('--switch');
    expect(job.spec.podFailurePolicy.rules[0]).toEqual({ action: 'FailJob', onExitCodes: { containerName: 'rebuild', operator: 'In', values: [1, 2] } });
  });

  it('connects as the migration roles, from the Secrets the migrations Job reads', () => {
    const migrations = prod.find((resource) => resource.kind === 'Job' && resource.metadata.name.startsWith('migrations'));
    const secretsOf = (resource: { env?: Array<{ name: string; valueFrom?: { secretKeyRef?: { name: string } } }> }) =>
      new Map(
        (resource.env ?? []).filter((variable) => variable.valueFrom?.secretKeyRef).map((variable) => [variable.name, variable.valueFrom?.secretKeyRef?.name]),
      );
    const own = secretsOf(container);
    const theirs = secretsOf(migrations?.spec.template.spec.containers[0]);
    expect([...own.keys()].every((name) => name.endsWith('_MIGRATION_DATABASE_URL'))).toBe(true);
    for (const [name, secret] of own) expect(theirs.get(name)).toBe(secret);
  });

  it('runs non-root, read-only, without privileges or a service account token, with requests and limits', () => {
    expect(pod.spec.automountServiceAccountToken).toBe(false);
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, seccompProfile: { type: 'RuntimeDefault' } });
    expect(container.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      runAsNonRoot: true,
      capabilities: { drop: ['ALL'] },
    });
    expect(container.resources.requests).toBeDefined();
    expect(container.resources.limits).toBeDefined();
  });

  it("carries the labels by which prod's policies let a provisioning Job reach PostgreSQL", () => {
    const labels = pod.metadata.labels as Record<string, string>;
    expect(labels).toMatchObject({ 'app.kubernetes.io/part-of': 'merchant-payments', 'app.kubernetes.io/component': 'provisioning' });
    const admitting = prod.filter(
      ({ kind, spec }) =>
        kind === 'NetworkPolicy' &&
        (spec.ingress ?? []).some((rule: { from?: Array<{ podSelector?: { matchExpressions?: Array<{ key: string; values?: string[] }> } }> }) =>
          (rule.from ?? []).some((peer) =>
            (peer.podSelector?.matchExpressions ?? []).some(
              (expression) => expression.key === 'app.kubernetes.io/component' && expression.values?.includes('provisioning'),
            ),
          ),
        ),
    );
    expect(admitting.length).toBeGreaterThan(0);
    expect(prod.some((resource) => resource.metadata.name === 'projection-rebuild')).toBe(false);
  });
});
