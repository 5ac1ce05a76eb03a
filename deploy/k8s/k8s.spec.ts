/**
 * Goal: the Kubernetes manifests (deploy/k8s) and the service catalog (deploy/catalog/services.json)
 * cannot drift apart, and neither overlay loses the platform's safety settings. For both
 * overlays, as `kubectl kustomize` renders them: every catalog service has exactly one
 * Deployment and one Service on the catalog's port, probed on the catalog's health paths, and
 * no Deployment exists that the catalog lacks; public Ingresses route only /v2 and /pay to the
 * gateway and internal ones only /backoffice and /console (prod routes both); every container runs non-root with a read-only
 * root filesystem and has requests and limits; each service's configuration finds every
 * variable it requires; each internal port admits exactly the services whose configuration
 * names its URL; consumers never scale past the partition count; the stop sequence fits in the
 * grace period; the gateway trusts the ingress controllers' X-Forwarded-For (private ranges
 * only, and only the ingress controllers reach its public port); dev generates every Secret it
 * references, prod none. Kafka: every service connects over SASL_SSL as its own principal, with
 * its own Secret and the broker CA; prod's KafkaUsers grant exactly the ACLs init's kafka-access
 * step makes (aclsOf), and only the gateway's writes a command topic; dev's broker and users Job
 * run deploy/kafka's scripts, the ones compose runs.
 * Method: the rendered YAML is parsed; the facts that only exist as source text (which
 * variables a config reads, with or without a default) are read from the files the catalog names.
 * Needs kubectl (its built-in kustomize), and keytool the first time (dev's Kafka TLS material,
 * deploy/k8s/dev-kafka-tls.sh). deploy/k8s/validate.sh checks the schemas.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import { PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';
import { isTrustedProxyEntry, REQUEST_BODY_BYTES_MAX } from '@mp/gateway-api';
import { aclsOf, deadLetterTopicOf, replayPrincipalOf, type KafkaAccess, type KafkaAclBinding } from '@mp/shared-messaging';
import { DEFAULT_PREPARED_STATEMENTS_MAX } from '@mp/shared-data-access-postgres';
import { RECEIPT_BYTES_MAX } from '@mp/shared-util-validation';
import ipaddr from 'ipaddr.js';
import YAML from 'yaml';
import { heapFlagsOf, MALLOC_ARENAS, memoryMiB, memoryNeededMb } from '../heap-limits';

interface CatalogService {
  name: string;
  config: string;
  devPort: number;
  health: { live: string; ready: string };
  consumerGroups: Array<{ id: string; topics: string[] }>;
  produces: string[];
}

interface Probe {
  httpGet?: { path: string; port: number | string };
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  ports?: Array<{ name?: string; containerPort: number }>;
  env?: Array<{ name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string }; configMapKeyRef?: { name: string; key: string } } }>;
  envFrom?: Array<{ configMapRef?: { name: string }; secretRef?: { name: string } }>;
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: { allowPrivilegeEscalation?: boolean; readOnlyRootFilesystem?: boolean; capabilities?: { drop?: string[] } };
  volumeMounts?: Array<{ name: string; mountPath: string; readOnly?: boolean; subPath?: string }>;
}
interface VolumeItems {
  items?: Array<{ key: string; path: string }>;
}
interface PodSpec {
  containers: Container[];
  volumes?: Array<{ name: string; secret?: VolumeItems & { secretName: string }; configMap?: VolumeItems & { name: string } }>;
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
}
interface Resource {
  apiVersion: string;
  kind: string;
  metadata: { name: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  // The fields read below differ by kind; each check casts to what its kind has.
  spec?: Record<string, unknown> & { template?: { metadata?: { labels?: Record<string, string> }; spec: PodSpec } };
  data?: Record<string, string>;
}
interface IngressPath {
  path: string;
  backend: { service: { name: string; port: { name?: string; number?: number } } };
}
interface PolicyPeer {
  podSelector?: { matchLabels?: Record<string, string> };
  namespaceSelector?: { matchLabels?: Record<string, string> };
}
interface PolicyRule {
  ports?: Array<{ port: number }>;
  from?: PolicyPeer[];
}

interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist'; values?: string[] }>;
}
/** Whether a label selector (a NetworkPolicy's podSelector, a PodMonitor's selector) selects pods with these labels. */
function selects(selector: LabelSelector, labels: Record<string, string>): boolean {
  const matchesLabels = Object.entries(selector.matchLabels ?? {}).every(([key, value]) => labels[key] === value);
  const matchesExpressions = (selector.matchExpressions ?? []).every(({ key, operator, values = [] }) => {
    if (operator === 'In') return values.includes(labels[key] ?? '\u0000');
    if (operator === 'NotIn') return !values.includes(labels[key] ?? '\u0000');
    return operator === 'Exists' ? key in labels : !(key in labels);
  });
  return matchesLabels && matchesExpressions;
}

const repositoryRoot = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(repositoryRoot, path), 'utf8');
const catalog = JSON.parse(read('deploy/catalog/services.json')) as {
  services: CatalogService[];
  topics: Array<{ name: string }>;
  kafka: { deadLetterPartitions: number; retentionMs: number; deadLetterRetentionMs: number };
};
const services = catalog.services;
const envPrefix = (name: string) => name.toUpperCase().replaceAll('-', '_');
const NAME_LABEL = 'app.kubernetes.io/name';

/** The value, or a failing test that names what is missing. */
function present<T>(value: T | null | undefined, what: string): T {
  if (value === null || value === undefined) throw new Error(`${what} is missing`);
  return value;
}
const specOf = (resource: Resource) => present(resource.spec, `the spec of ${resource.kind}/${resource.metadata.name}`);
const podOf = (workload: Resource) => present(workload.spec?.template, `the pod template of ${workload.kind}/${workload.metadata.name}`).spec;
const catalogPort = (name: string) =>
  present(
    services.find((service) => service.name === name),
    `the catalog service ${name}`,
  ).devPort;

/** The overlay as `kubectl kustomize` renders it, one object per resource (rendered once per run). */
const renderedOverlays = new Map<string, Resource[]>();
function render(overlay: string): Resource[] {
  const rendered = renderedOverlays.get(overlay) ?? renderOnce(overlay);
  renderedOverlays.set(overlay, rendered);
  return rendered;
}
function renderOnce(overlay: string): Resource[] {
  let text: string;
  try {
    // dev's Kafka TLS Secrets are generated from files made on this machine (git-ignored): made when missing.
    if (overlay === 'dev') {
      execFileSync('bash', [join(repositoryRoot, 'deploy/k8s/dev-kafka-tls.sh')], { stdio: 'ignore' });
      // The dev overlay's passwords and keys, made on this machine (never committed).
      execFileSync(process.execPath, [join(repositoryRoot, 'tools/generate-secrets.mjs'), '--k8s-dev'], { stdio: 'ignore' });
    }
    text = execFileSync('kubectl', ['kustomize', join(repositoryRoot, 'deploy/k8s/overlays', overlay)], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error('deploy/k8s/k8s.spec.ts renders the overlays with kubectl (its built-in kustomize): install kubectl');
    throw error;
  }
  return YAML.parseAllDocuments(text)
    .map((document) => document.toJSON() as Resource | null)
    .filter((resource): resource is Resource => resource !== null);
}

/**
 * Whether a GATEWAY_TRUSTED_PROXIES entry lies wholly in private address space (RFC 1918, CGNAT,
 * IPv6 unique-local), where pod networks are: trusting a public address would let a client on
 * the Internet name its own address, and so its own rate-limit bucket.
 */
function isPrivateRange(entry: string): boolean {
  const [address, prefix] = entry.includes('/') ? ipaddr.parseCIDR(entry) : [ipaddr.parse(entry), entry.includes(':') ? 128 : 32];
  if (address.kind() === 'ipv4') {
    const [first, last] = [
      ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${prefix}`),
      ipaddr.IPv4.broadcastAddressFromCIDR(`${address.toString()}/${prefix}`),
    ];
    return [first, last].every((bound) => ['private', 'carrierGradeNat'].includes(bound.range()));
  }
  // fc00::/7: the whole unique-local block or a part of it.
  return address.range() === 'uniqueLocal' && prefix >= 7;
}

/** Kubernetes' own API groups (as deploy/k8s/built-in-resources.mjs decides); any other is an operator's. */
function isBuiltInApiVersion(apiVersion: string): boolean {
  const group = apiVersion.includes('/') ? apiVersion.slice(0, apiVersion.lastIndexOf('/')) : '';
  return !group.includes('.') || group.endsWith('.k8s.io');
}

/** Generated names carry a content hash (platform-4h7mh56k5m): the name without it. */
const baseName = (generatedName: string) => generatedName.replace(/-[a-z0-9]{10}$/, '');

/**
 * The variables a service's config file reads, each with whether it has a default. A reader
 * call with no `default` (and no boolean default) stops the service at boot when the variable is
 * missing. KAFKA_BROKERS is read by the shared Kafka config (readKafkaConnectionConfig) and required.
 */
function configVariables(configFile: string): Map<string, { required: boolean }> {
  const source = read(configFile);
  const variables = new Map<string, { required: boolean }>();
  // A call's options run to the next reader call (a formatter may spread them over lines).
  for (const match of source.matchAll(/reader\.(string|url|base64Key|list|integer|oneOf|boolean|optionalString)\(\s*'([A-Z0-9_]+)'([\s\S]*?)(?=reader\.|$)/g)) {
    const [, method, name, rest] = match;
    const required = method !== 'optionalString' && method !== 'boolean' && method !== 'oneOf' && !/\bdefault\b/.test(rest);
    variables.set(name, { required });
  }
  if (source.includes('readKafkaConnectionConfig(reader)')) variables.set('KAFKA_BROKERS', { required: true });
  return variables;
}

/** Which services a service calls: the <NAME>_INTERNAL_URL its config reads (GATEWAY_INTERNAL_URL is the gateway's internal listener). */
function calledServices(service: CatalogService): string[] {
  return [...configVariables(service.config).keys()]
    .filter((name) => name.endsWith('_INTERNAL_URL'))
    .map((name) => name.slice(0, -'_INTERNAL_URL'.length).toLowerCase());
}

/** The port a caller reaches a service on: the gateway's internal listener for the gateway, the catalog port otherwise. */
const GATEWAY_INTERNAL_PORT = 3010;
const internalPort = (name: string) => (name === 'gateway' ? GATEWAY_INTERNAL_PORT : catalogPort(name));

/**
 * The keys of the Secrets a pod takes whole (envFrom), by name without the hash: prod commits no
 * Secret, so the keys are those of dev's example Secrets, which a prod Secret must also have.
 */
const secretKeysByName = new Map(
  render('dev')
    .filter((resource) => resource.kind === 'Secret')
    .map((secret) => [baseName(secret.metadata.name), Object.keys(secret.data ?? {})]),
);

describe.each(['dev', 'prod'])('the %s overlay', (overlay) => {
  const resources = render(overlay);
  const ofKind = (kind: string) => resources.filter((resource) => resource.kind === kind);
  const deployments = ofKind('Deployment');
  const jobs = ofKind('Job');
  const named = (kind: string, name: string) => ofKind(kind).filter((resource) => resource.metadata.name === name);
  const containerOf = (name: string) => podOf(named('Deployment', name)[0]).containers[0];
  const platformConfig = present(ofKind('ConfigMap').find((configMap) => baseName(configMap.metadata.name) === 'platform')?.data, 'the platform ConfigMap');

  it('has exactly the catalog services as Deployments (the ops Jobs aside)', () => {
    expect(deployments.map((deployment) => deployment.metadata.name).sort()).toEqual(services.map((service) => service.name).sort());
  });

  it.each(services.map((service) => [service.name, service] as const))('runs %s on its catalog port, probed on its catalog health paths', (_name, service) => {
    expect(named('Deployment', service.name)).toHaveLength(1);
    const serviceResources = named('Service', service.name);
    expect(serviceResources).toHaveLength(1);
    const servicePorts = (specOf(serviceResources[0]).ports as Array<{ port: number; targetPort: number | string }>).map((port) => port.port);
    expect(servicePorts).toEqual([service.devPort]);

    const container = containerOf(service.name);
    const portNumber = (port: number | string) =>
      typeof port === 'number' ? port : (container.ports ?? []).find((candidate) => candidate.name === port)?.containerPort;
    expect(container.env).toContainEqual({ name: `${envPrefix(service.name)}_HTTP_PORT`, value: String(service.devPort) });
    expect(container.env).toContainEqual({ name: `${envPrefix(service.name)}_HTTP_HOST`, value: '0.0.0.0' });
    const probes = { startup: container.startupProbe, liveness: container.livenessProbe, readiness: container.readinessProbe };
    const probed = Object.fromEntries(
      Object.entries(probes).map(([kind, probe]) => [kind, probe?.httpGet && { path: probe.httpGet.path, port: portNumber(probe.httpGet.port) }]),
    );
    expect(probed).toEqual({
      startup: { path: service.health.live, port: service.devPort },
      liveness: { path: service.health.live, port: service.devPort },
      readiness: { path: service.health.ready, port: service.devPort },
    });
  });

  it.each(services.map((service) => [service.name, service] as const))('gives %s every variable its config requires', (_name, service) => {
    const container = containerOf(service.name);
    const wholeSourceKeys = (container.envFrom ?? []).flatMap((source) => {
      if (source.secretRef) return secretKeysByName.get(baseName(source.secretRef.name)) ?? [];
      const configMap = ofKind('ConfigMap').find((candidate) => candidate.metadata.name === source.configMapRef?.name);
      return Object.keys(configMap?.data ?? {});
    });
    const provided = new Set([...(container.env ?? []).map((variable) => variable.name), ...wholeSourceKeys]);
    const required = [...configVariables(service.config)].filter(([, { required }]) => required).map(([name]) => name);
    expect(required.filter((name) => !provided.has(name))).toEqual([]);
  });

  it('points every *_INTERNAL_URL at the called service and admits exactly those callers on its internal port', () => {
    const policies = ofKind('NetworkPolicy');
    const admittedCallers = (name: string, port: number) =>
      policies
        .filter((policy) => (specOf(policy).podSelector as { matchLabels?: Record<string, string> }).matchLabels?.[NAME_LABEL] === name)
        .flatMap((policy) => (specOf(policy).ingress as PolicyRule[] | undefined) ?? [])
        .filter((rule) => rule.ports?.some((candidate) => candidate.port === port))
        .flatMap((rule) => rule.from ?? [])
        .map((peer) => peer.podSelector?.matchLabels?.[NAME_LABEL])
        .filter((caller): caller is string => caller !== undefined && services.some((service) => service.name === caller));
    const expectedCallers = new Map<string, string[]>();
    for (const caller of services) {
      for (const called of calledServices(caller)) {
        const url = containerOf(caller.name).env?.find((variable) => variable.name === `${envPrefix(called)}_INTERNAL_URL`)?.value;
        // prod runs internal HTTP over TLS (deploy/k8s/internal-tls); dev in clear text.
        const scheme = overlay === 'prod' ? 'https' : 'http';
        expect({ caller: caller.name, url }).toEqual({
          caller: caller.name,
          url: `${scheme}://${called === 'gateway' ? 'gateway-internal' : called}:${internalPort(called)}`,
        });
        expectedCallers.set(called, [...(expectedCallers.get(called) ?? []), caller.name]);
      }
    }
    const admitted = Object.fromEntries(services.map((service) => [service.name, admittedCallers(service.name, internalPort(service.name)).sort()]));
    const expected = Object.fromEntries(services.map((service) => [service.name, (expectedCallers.get(service.name) ?? []).sort()]));
    expect(admitted).toEqual(expected);
    expect(policies.find((policy) => policy.metadata.name === 'default-deny-ingress')?.spec).toEqual({ podSelector: {}, policyTypes: ['Ingress'] });
  });

  it('routes only /v2 and /pay through public Ingresses, and only /backoffice and /console through internal ones, all to the gateway', () => {
    const ingresses = ofKind('Ingress');
    const routes = (exposure: string) =>
      ingresses
        .filter((ingress) => ingress.metadata.labels?.['merchant-payments/exposure'] === exposure)
        .flatMap((ingress) => (specOf(ingress).rules as Array<{ http: { paths: IngressPath[] } }>).flatMap((rule) => rule.http.paths))
        .map((path) => `${path.path} -> ${path.backend.service.name}:${path.backend.service.port.name ?? path.backend.service.port.number}`);
    expect(ingresses.filter((ingress) => !['public', 'internal'].includes(ingress.metadata.labels?.['merchant-payments/exposure'] ?? ''))).toEqual([]);
    expect(routes('public').sort()).toEqual(['/pay -> gateway:http', '/v2 -> gateway:http']);
    // The console is served by the gateway (libs/console/bff), never publicly: prod's internal Ingress routes it.
    expect(routes('internal').filter((route) => !['/backoffice -> gateway:http', '/console -> gateway:http'].includes(route))).toEqual([]);
    expect(routes('internal').sort()).toEqual(overlay === 'prod' ? ['/backoffice -> gateway:http', '/console -> gateway:http'] : []);
    const gatewayPorts = specOf(named('Service', 'gateway')[0]).ports as Array<{ name: string; port: number }>;
    expect(gatewayPorts.find((port) => port.name === 'http')?.port).toBe(catalogPort('gateway'));
  });

  it("lets the gateway's largest request through every Ingress, so that the gateway, not the controller, refuses a larger one", () => {
    // A dispute (endpoint 14) with a receipt as base64, as DISPUTE_REQUEST_BODY_BYTES_MAX in libs/gateway/api/src/gateway-settings.ts.
    const largestRequestBytes = Math.ceil(RECEIPT_BYTES_MAX / 3) * 4 + REQUEST_BODY_BYTES_MAX;
    const units: Record<string, number> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };
    for (const ingress of ofKind('Ingress')) {
      const limit = /^(\d+)([kmg]?)$/i.exec(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-body-size'] ?? '');
      const limitBytes = limit ? Number(limit[1]) * units[limit[2].toLowerCase()] : 0;
      expect({ ingress: ingress.metadata.name, enough: limitBytes >= largestRequestBytes }).toEqual({ ingress: ingress.metadata.name, enough: true });
    }
  });

  it('runs every container of the services and Jobs non-root, read-only, without privileges, with requests and limits', () => {
    const findings = [...deployments, ...jobs].flatMap((workload) => {
      const pod = podOf(workload);
      return pod.containers.map((container) => ({
        workload: `${workload.kind}/${workload.metadata.name}`,
        runAsNonRoot: pod.securityContext?.runAsNonRoot === true && pod.securityContext.runAsUser !== 0,
        seccomp: pod.securityContext?.seccompProfile?.type,
        allowPrivilegeEscalation: container.securityContext?.allowPrivilegeEscalation,
        readOnlyRootFilesystem: container.securityContext?.readOnlyRootFilesystem,
        dropped: container.securityContext?.capabilities?.drop,
        requests: Object.keys(container.resources?.requests ?? {}).sort(),
        limits: Object.keys(container.resources?.limits ?? {}).sort(),
      }));
    });
    // The services and at least the migrations Job.
    expect(findings.length).toBeGreaterThanOrEqual(services.length + 1);
    for (const finding of findings) {
      expect(finding).toEqual({
        workload: finding.workload,
        runAsNonRoot: true,
        seccomp: 'RuntimeDefault',
        allowPrivilegeEscalation: false,
        readOnlyRootFilesystem: true,
        dropped: ['ALL'],
        requests: ['cpu', 'memory'],
        limits: ['cpu', 'memory'],
      });
    }
  });

  it.each(services.map((service) => [service.name]))(
    'runs %s under heap limits (NODE_OPTIONS) that its memory limit has room for, and requests no more than its limit',
    (name) => {
      const container = containerOf(name);
      const flags = heapFlagsOf(container.env?.find((variable) => variable.name === 'NODE_OPTIONS')?.value);
      const { requests, limits } = container.resources ?? {};
      expect({ name, flags: flags !== null }).toEqual({ name, flags: true });
      const limitMiB = memoryMiB(present(limits?.memory, `${name}'s memory limit`), 'kubernetes');
      expect({ name, fits: flags !== null && limitMiB >= memoryNeededMb(flags) }).toEqual({ name, fits: true });
      expect({ name, requestWithinLimit: memoryMiB(present(requests?.memory, `${name}'s memory request`), 'kubernetes') <= limitMiB }).toEqual({
        name,
        requestWithinLimit: true,
      });
    },
  );

  it('gives every service two malloc arenas through the platform ConfigMap it reads', () => {
    expect(platformConfig['MALLOC_ARENA_MAX']).toBe(MALLOC_ARENAS);
    for (const { name } of services) {
      const sources = (containerOf(name).envFrom ?? []).map((source) => source.configMapRef?.name && baseName(source.configMapRef.name));
      expect({ name, readsPlatform: sources.includes('platform') }).toEqual({ name, readsPlatform: true });
    }
  });

  it('runs Kafka and PostgreSQL as StatefulSets in dev only, non-root and without privileges', () => {
    const statefulSets = ofKind('StatefulSet');
    expect(statefulSets.map((statefulSet) => statefulSet.metadata.name).sort()).toEqual(overlay === 'dev' ? ['kafka', 'postgres'] : []);
    for (const statefulSet of statefulSets) {
      const pod = podOf(statefulSet);
      const container = pod.containers[0];
      expect({
        name: statefulSet.metadata.name,
        runAsNonRoot: pod.securityContext?.runAsNonRoot,
        escalation: container.securityContext?.allowPrivilegeEscalation,
        dropped: container.securityContext?.capabilities?.drop,
      }).toEqual({
        name: statefulSet.metadata.name,
        runAsNonRoot: true,
        escalation: false,
        dropped: ['ALL'],
      });
    }
  });

  it('gives every service time to stop: the preStop pause plus SHUTDOWN_GRACE_MS fits in the grace period', () => {
    const shutdownGraceSeconds = Number(platformConfig['SHUTDOWN_GRACE_MS']) / 1000;
    for (const deployment of deployments) {
      const pod = podOf(deployment);
      const pause = Number(pod.containers[0].lifecycle?.preStop?.exec?.command.at(-1) ?? 0);
      expect({ deployment: deployment.metadata.name, fits: pause + shutdownGraceSeconds < (pod.terminationGracePeriodSeconds ?? 30) }).toEqual({
        deployment: deployment.metadata.name,
        fits: true,
      });
    }
  });

  it('never scales a consumer past the partition count, where more replicas would sit idle', () => {
    const partitions = Number(platformConfig['KAFKA_TOPIC_PARTITIONS']);
    const consumers = services.filter((service) => service.name !== 'gateway').map((service) => service.name);
    const autoscalers = ofKind('HorizontalPodAutoscaler');
    for (const autoscaler of autoscalers.filter((candidate) => consumers.includes(candidate.metadata.name))) {
      const maxReplicas = Number(specOf(autoscaler).maxReplicas);
      expect({ consumer: autoscaler.metadata.name, maxReplicas }).toEqual({
        consumer: autoscaler.metadata.name,
        maxReplicas: Math.min(maxReplicas, partitions),
      });
    }
    if (overlay === 'dev') {
      expect(autoscalers).toEqual([]);
      expect(deployments.map((deployment) => specOf(deployment).replicas)).toEqual(deployments.map(() => 1));
    } else {
      expect(autoscalers.map((autoscaler) => autoscaler.metadata.name).sort()).toEqual(services.map((service) => service.name).sort());
    }
  });

  it('believes X-Forwarded-For from the ingress controllers only: GATEWAY_TRUSTED_PROXIES names private ranges, and only the controllers reach the public port', () => {
    const source = present(
      containerOf('gateway').env?.find((variable) => variable.name === 'GATEWAY_TRUSTED_PROXIES')?.valueFrom?.configMapKeyRef,
      "the gateway's GATEWAY_TRUSTED_PROXIES",
    );
    const configMap = present(ofKind('ConfigMap').find((candidate) => candidate.metadata.name === source.name)?.data, `the ConfigMap ${source.name}`);
    const entries = (configMap[source.key] ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter(Boolean);
    // Empty, every payer behind the ingress would share the controller's address: one bucket for all of them.
    expect(entries.length).toBeGreaterThan(0);
    expect(entries.filter((entry) => !isTrustedProxyEntry(entry) || !isPrivateRange(entry))).toEqual([]);
    const publicPort = named('NetworkPolicy', 'gateway-http').flatMap((policy) => (specOf(policy).ingress as PolicyRule[]).flatMap((rule) => rule.from ?? []));
    expect(publicPort).toEqual([{ namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } }]);
  });

  it('gives every service its own service-token key and everyone’s public keys, from Secrets (no switch to turn the check off)', () => {
    for (const deployment of deployments) {
      const env = podOf(deployment).containers[0].env ?? [];
      // dev's generated Secrets carry a content hash after the name.
      const secretOf = (name: string) => env.find((variable) => variable.name === name)?.valueFrom?.secretKeyRef?.name.replace(/-[a-z0-9]{10}$/, '');
      expect({
        deployment: deployment.metadata.name,
        privateKey: secretOf('SERVICE_TOKEN_PRIVATE_KEY'),
        publicKeys: secretOf('SERVICE_TOKEN_PUBLIC_KEYS'),
      }).toEqual({
        deployment: deployment.metadata.name,
        privateKey: `${deployment.metadata.name}-service-token`,
        publicKeys: 'service-token-public-keys',
      });
    }
  });

  it(overlay === 'dev' ? 'generates every Secret key it references' : 'commits no Secret: every one it references comes from the secret store', () => {
    const referenced = [...deployments, ...jobs, ...ofKind('StatefulSet')].flatMap((workload) => [
      ...podOf(workload).containers.flatMap((container) => [
        ...(container.env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [variable.valueFrom.secretKeyRef] : [])),
        // A Secret taken whole needs only to exist.
        ...(container.envFrom ?? []).flatMap((source) => (source.secretRef ? [{ name: source.secretRef.name, key: undefined }] : [])),
      ]),
      // A Secret mounted as files: the keys it lists, or the whole Secret.
      ...(podOf(workload).volumes ?? []).flatMap(({ secret }) =>
        secret ? (secret.items ?? [{ key: undefined }]).map(({ key }) => ({ name: secret.secretName, key })) : [],
      ),
    ]);
    expect(referenced.length).toBeGreaterThan(0);
    const secrets = ofKind('Secret');
    if (overlay === 'prod') {
      expect(secrets).toEqual([]);
      return;
    }
    const missing = referenced.filter(
      ({ name, key }) => !secrets.some((secret) => secret.metadata.name === name && (key === undefined || secret.data?.[key] !== undefined)),
    );
    expect(missing).toEqual([]);
  });
  it('spreads every Deployment over nodes (hard) and zones (soft), counting only its own pods of one revision', () => {
    for (const deployment of deployments) {
      const name = deployment.metadata.name;
      const constraints =
        (
          podOf(deployment) as PodSpec & {
            topologySpreadConstraints?: Array<{
              topologyKey: string;
              whenUnsatisfiable: string;
              maxSkew: number;
              labelSelector?: { matchLabels?: Record<string, string> };
              matchLabelKeys?: string[];
            }>;
          }
        ).topologySpreadConstraints ?? [];
      const summary = constraints.map(({ topologyKey, whenUnsatisfiable, maxSkew, labelSelector, matchLabelKeys }) => ({
        topologyKey,
        whenUnsatisfiable,
        maxSkew,
        selects: labelSelector?.matchLabels?.[NAME_LABEL],
        matchLabelKeys,
      }));
      expect({ name, summary }).toEqual({
        name,
        summary: [
          { topologyKey: 'kubernetes.io/hostname', whenUnsatisfiable: 'DoNotSchedule', maxSkew: 1, selects: name, matchLabelKeys: ['pod-template-hash'] },
          { topologyKey: 'topology.kubernetes.io/zone', whenUnsatisfiable: 'ScheduleAnyway', maxSkew: 1, selects: name, matchLabelKeys: ['pod-template-hash'] },
        ],
      });
    }
  });

  it('denies every workload all egress but what a policy of its own allows, and only the callback dispatcher reaches the Internet', () => {
    const policies = ofKind('NetworkPolicy');
    const egressPolicies = policies.filter((policy) => ((specOf(policy).policyTypes as string[] | undefined) ?? []).includes('Egress'));
    const workloads = [...deployments, ...jobs, ...ofKind('StatefulSet')];
    expect(workloads.length).toBeGreaterThan(services.length);
    const selecting = (labels: Record<string, string>) =>
      egressPolicies.filter((policy) => selects(specOf(policy).podSelector as LabelSelector, labels)).map((policy) => policy.metadata.name);
    for (const workload of workloads) {
      const labels = present(workload.spec?.template, `the pod template of ${workload.metadata.name}`).metadata?.labels ?? {};
      const names = selecting(labels);
      // The default deny, DNS, and at least one policy for what the workload itself connects to.
      expect({
        workload: `${workload.kind}/${workload.metadata.name}`,
        denied: names.includes('default-deny-egress'),
        dns: names.includes('dns-egress'),
        own: names.filter((name) => !['default-deny-egress', 'dns-egress'].includes(name)).length > 0 || workload.kind === 'StatefulSet',
      }).toEqual({
        workload: `${workload.kind}/${workload.metadata.name}`,
        denied: true,
        dns: true,
        own: true,
      });
    }
    expect(specOf(named('NetworkPolicy', 'default-deny-egress')[0])).toEqual({
      podSelector: {
        matchLabels: { 'app.kubernetes.io/part-of': 'merchant-payments' },
        matchExpressions: [{ key: 'app.kubernetes.io/component', operator: 'In', values: ['service', 'provisioning', 'infra'] }],
      },
      policyTypes: ['Egress'],
    });
    // Strimzi copies the Kafka resource's labels onto its pods: none of the operators' resources may carry a component the default deny selects.
    const operatorResources = resources.filter((resource) => !isBuiltInApiVersion(resource.apiVersion));
    expect(
      operatorResources
        .filter((resource) => ['service', 'provisioning', 'infra'].includes(resource.metadata.labels?.['app.kubernetes.io/component'] ?? ''))
        .map((resource) => resource.metadata.name),
    ).toEqual([]);
    const internetReachers = egressPolicies.filter((policy) =>
      ((specOf(policy).egress as Array<{ to?: Array<{ ipBlock?: { cidr: string } }> }> | undefined) ?? []).some(
        (rule) => (rule.to ?? []).some((peer) => peer.ipBlock !== undefined) || rule.to === undefined,
      ),
    );
    expect(internetReachers.map((policy) => ({ name: policy.metadata.name, selects: (specOf(policy).podSelector as LabelSelector).matchLabels }))).toEqual([
      { name: 'callbacks-egress', selects: { [NAME_LABEL]: 'callbacks' } },
    ]);
    for (const block of internetReachers.flatMap((policy) =>
      (specOf(policy).egress as Array<{ to?: Array<{ ipBlock?: { cidr: string; except?: string[] } }> }>)
        .flatMap((rule) => rule.to ?? [])
        .flatMap((peer) => (peer.ipBlock ? [peer.ipBlock] : [])),
    )) {
      // The private ranges, link-local (the cloud's metadata endpoint) and loopback stay closed.
      expect({ cidr: block.cidr, except: block.except }).toEqual({
        cidr: block.cidr,
        except: expect.arrayContaining(
          block.cidr.includes(':') ? ['fc00::/7', 'fe80::/10'] : ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', '169.254.0.0/16'],
        ),
      });
    }
  });

  it('allows each service to open exactly the internal connections its configuration names (*_INTERNAL_URL)', () => {
    const egressTo = (name: string) =>
      ofKind('NetworkPolicy')
        .filter((policy) => (specOf(policy).podSelector as LabelSelector).matchLabels?.[NAME_LABEL] === name)
        .flatMap((policy) => (specOf(policy).egress as Array<{ ports?: Array<{ port: number }>; to?: PolicyPeer[] }> | undefined) ?? [])
        .flatMap((rule) => (rule.to ?? []).flatMap((peer) => (rule.ports ?? []).map((port) => `${peer.podSelector?.matchLabels?.[NAME_LABEL]}:${port.port}`)))
        .filter((target) => services.some((service) => target.startsWith(`${service.name}:`)))
        .sort();
    const allowed = Object.fromEntries(services.map((service) => [service.name, egressTo(service.name)]));
    const expected = Object.fromEntries(
      services.map((service) => [
        service.name,
        calledServices(service)
          .map((called) => `${called}:${internalPort(called)}`)
          .sort(),
      ]),
    );
    expect(allowed).toEqual(expected);
  });

  it('has no prometheus.io annotations: scraping is said by PodMonitors only', () => {
    const annotated = resources
      .filter((resource) => JSON.stringify(resource).includes('prometheus.io/'))
      .map((resource) => `${resource.kind}/${resource.metadata.name}`);
    expect(annotated).toEqual([]);
  });

  it("names each ops Job after the ops image's tag, and lets it delete itself once finished, so an upgrade applies new Jobs and deletes none", () => {
    const opsJobs = jobs.filter((job) => podOf(job).containers[0].image.includes('merchant-payments/ops'));
    expect(opsJobs.length).toBeGreaterThan(0);
    for (const job of opsJobs) {
      const tag = podOf(job).containers[0].image.split(':').at(-1);
      expect({ job: job.metadata.name, ttl: typeof specOf(job).ttlSecondsAfterFinished }).toEqual({
        job: `${job.metadata.labels?.[NAME_LABEL]}-${tag}`,
        ttl: 'number',
      });
    }
  });

  it("runs the migrations as each database's migration role, whose Secret no service holds", () => {
    const migrationsJob = podOf(opsJob(resources, 'migrations')).containers[0];
    const secretOf = (container: Container, variable: string) =>
      baseName(container.env?.find(({ name }) => name === variable)?.valueFrom?.secretKeyRef?.name ?? '');
    for (const { name } of services) {
      expect({
        name,
        migration: secretOf(migrationsJob, `${envPrefix(name)}_MIGRATION_DATABASE_URL`),
        service: secretOf(migrationsJob, `${envPrefix(name)}_DATABASE_URL`),
      }).toEqual({ name, migration: `${name}-migration-database`, service: `${name}-database` });
    }
    const holders = deployments.filter((deployment) => JSON.stringify(podOf(deployment)).includes('-migration-database'));
    expect(holders.map((deployment) => deployment.metadata.name)).toEqual([]);
    if (overlay === 'dev') {
      const urlOf = (secretName: string) =>
        Buffer.from(
          present(ofKind('Secret').find((secret) => baseName(secret.metadata.name) === secretName)?.data?.DATABASE_URL, `${secretName}'s DATABASE_URL`),
          'base64',
        ).toString();
      for (const { name } of services) expect(new URL(urlOf(`${name}-migration-database`)).username).toBe(`${name}_migrator`);
      return;
    }
    // prod: CloudNativePG makes both roles from their Secrets and gives each database to its migration role.
    const cluster = present(ofKind('Cluster')[0], 'the CloudNativePG Cluster');
    const roles = (specOf(cluster).managed as { roles: Array<{ name: string; login: boolean; passwordSecret: { name: string } }> }).roles;
    for (const { name } of services) {
      expect(roles).toContainEqual(expect.objectContaining({ name, login: true, passwordSecret: { name: `${name}-database` } }));
      expect(roles).toContainEqual(expect.objectContaining({ name: `${name}_migrator`, login: true, passwordSecret: { name: `${name}-migration-database` } }));
      const database = ofKind('Database').find((candidate) => specOf(candidate).name === name);
      expect({ name, owner: database && specOf(database).owner }).toEqual({ name, owner: `${name}_migrator` });
    }
  });
});

describe('The prod overlay: Pod Security, monitoring, Kafka metrics', () => {
  const resources = render('prod');
  const ofKind = (kind: string) => resources.filter((resource) => resource.kind === kind);
  const kafkaSpec = () => specOf(present(ofKind('Kafka')[0], 'the Strimzi Kafka')) as { kafka: Record<string, unknown>; kafkaExporter?: object };

  it('enforces the restricted Pod Security Standard on its namespace, not only warns', () => {
    const namespaces = ofKind('Namespace');
    expect(
      namespaces.map((namespace) => ({ name: namespace.metadata.name, enforce: namespace.metadata.labels?.['pod-security.kubernetes.io/enforce'] })),
    ).toEqual([{ name: 'merchant-payments', enforce: 'restricted' }]);
  });

  it("scrapes every service on its metrics port (the gateway's internal listener) through a PodMonitor, with the job named after the service", () => {
    const monitors = ofKind('PodMonitor');
    for (const service of services) {
      const deployment = present(
        ofKind('Deployment').find((candidate) => candidate.metadata.name === service.name),
        `Deployment/${service.name}`,
      );
      const labels = deployment.spec?.template?.metadata?.labels ?? {};
      const ports = podOf(deployment).containers[0].ports ?? [];
      const scraped = monitors
        .filter((monitor) => selects(specOf(monitor).selector as LabelSelector, labels))
        .flatMap((monitor) =>
          (specOf(monitor).podMetricsEndpoints as Array<{ port: string; path?: string }>).map(({ port, path }) => ({
            job: specOf(monitor).jobLabel,
            port: ports.find((candidate) => candidate.name === port)?.containerPort,
            path,
          })),
        );
      expect({ service: service.name, scraped }).toEqual({
        service: service.name,
        scraped: [{ job: NAME_LABEL, port: internalPort(service.name), path: '/metrics' }],
      });
    }
  });

  it('holds the alert rules of deploy/observability/alerts.yml as a PrometheusRule, unchanged', () => {
    const rules = ofKind('PrometheusRule');
    expect(rules).toHaveLength(1);
    expect(specOf(rules[0]).groups).toEqual((YAML.parse(read('deploy/observability/alerts.yml')) as { groups: unknown[] }).groups);
  });

  it("exports Kafka's metrics (a JMX exporter ConfigMap in the overlay, the Kafka Exporter) and places replicas by zone", () => {
    const metricsConfig = kafkaSpec().kafka.metricsConfig as { type: string; valueFrom: { configMapKeyRef: { name: string; key: string } } };
    const configMap = ofKind('ConfigMap').find((candidate) => candidate.metadata.name === metricsConfig.valueFrom.configMapKeyRef.name);
    const exporterRules = YAML.parse(present(configMap?.data?.[metricsConfig.valueFrom.configMapKeyRef.key], 'the JMX exporter rules')) as {
      rules?: unknown[];
    };
    expect({
      type: metricsConfig.type,
      rules: (exporterRules.rules ?? []).length > 0,
      exporter: kafkaSpec().kafkaExporter !== undefined,
      rack: kafkaSpec().kafka.rack,
    }).toEqual({
      type: 'jmxPrometheusExporter',
      rules: true,
      exporter: true,
      rack: { topologyKey: 'topology.kubernetes.io/zone' },
    });
  });
});

describe('Internal TLS in the prod overlay (deploy/k8s/internal-tls)', () => {
  const resources = render('prod');
  const ofKind = (kind: string) => resources.filter((resource) => resource.kind === kind);
  const certificates = ofKind('Certificate');
  const serviceNameOf = (name: string) => (name === 'gateway' ? 'gateway-internal' : name);

  it("serves each service's internal listener from its own certificate's keystore, naming the Service its callers dial, and probes it over HTTPS", () => {
    for (const service of services) {
      const deployment = present(
        ofKind('Deployment').find((candidate) => candidate.metadata.name === service.name),
        `Deployment/${service.name}`,
      );
      const pod = podOf(deployment);
      const container = pod.containers[0];
      const file = (variable: string) => {
        const source = variableSource(container, variable);
        return source && 'value' in source ? fileSource(pod, container, source.value) : undefined;
      };
      const certificate = present(
        certificates.find((candidate) => candidate.metadata.name === `${service.name}-internal-tls`),
        `Certificate/${service.name}-internal-tls`,
      );
      const certificateSpec = specOf(certificate) as {
        secretName: string;
        dnsNames: string[];
        ipAddresses: string[];
        issuerRef: { name: string };
        keystores: { pkcs12: { create: boolean; profile: string; passwordSecretRef: { name: string; key: string } } };
      };
      expect({
        service: service.name,
        keystore: file('INTERNAL_TLS_KEYSTORE_FILE'),
        password: file('INTERNAL_TLS_KEYSTORE_PASSWORD_FILE'),
        ca: file('NODE_EXTRA_CA_CERTS'),
      }).toEqual({
        service: service.name,
        keystore: { from: `Secret/${certificateSpec.secretName}`, key: 'keystore.p12', readOnly: true },
        password: {
          from: `Secret/${certificateSpec.keystores.pkcs12.passwordSecretRef.name}`,
          key: certificateSpec.keystores.pkcs12.passwordSecretRef.key,
          readOnly: true,
        },
        ca: { from: `Secret/${certificateSpec.secretName}`, key: 'ca.crt', readOnly: true },
      });
      // Its own Secret only: no other service's key in its pod.
      expect(secretsReadBy(deployment).filter((name) => name.endsWith('-internal-tls'))).toEqual([`${service.name}-internal-tls`]);
      expect(certificateSpec.dnsNames).toContain(serviceNameOf(service.name));
      // The image's health check and Prometheus (serverName localhost) check these names.
      expect(certificateSpec).toMatchObject({
        ipAddresses: ['127.0.0.1'],
        issuerRef: { name: 'internal-ca' },
        keystores: { pkcs12: { create: true, profile: 'Modern2023' } },
      });
      expect(certificateSpec.dnsNames).toContain('localhost');
      // The gateway's probes are on its public port, whose TLS ends at the ingress.
      const probeSchemes = (['startupProbe', 'livenessProbe', 'readinessProbe'] as const).map(
        (probe) => (container[probe] as { httpGet?: { scheme?: string } } | undefined)?.httpGet?.scheme ?? 'HTTP',
      );
      expect({ service: service.name, probeSchemes }).toEqual({
        service: service.name,
        probeSchemes: Array(3).fill(service.name === 'gateway' ? 'HTTP' : 'HTTPS'),
      });
    }
  });

  it('scrapes the services over HTTPS, trusting the internal CA', () => {
    for (const monitor of ofKind('PodMonitor').filter((candidate) => ['services', 'gateway'].includes(candidate.metadata.name))) {
      expect((specOf(monitor).podMetricsEndpoints as object[])[0]).toMatchObject({
        scheme: 'https',
        tlsConfig: { ca: { secret: { name: 'internal-ca', key: 'ca.crt' } }, serverName: 'localhost' },
      });
    }
    const ca = present(
      certificates.find((candidate) => candidate.metadata.name === 'internal-ca'),
      'Certificate/internal-ca',
    );
    expect(specOf(ca)).toMatchObject({ isCA: true, secretName: 'internal-ca' });
  });
});

describe('PostgreSQL in the prod overlay: CloudNativePG with a PgBouncer Pooler', () => {
  const resources = render('prod');
  const cluster = present(
    resources.find((resource) => resource.kind === 'Cluster'),
    'the CloudNativePG Cluster',
  );
  const poolers = resources.filter((resource) => resource.kind === 'Pooler');

  it('gives the PostgreSQL instances CPU and memory requests and a memory limit (never BestEffort)', () => {
    const resourcesOf = specOf(cluster).resources as { requests?: Record<string, string>; limits?: Record<string, string> } | undefined;
    expect({ requests: Object.keys(resourcesOf?.requests ?? {}).sort(), memoryLimit: resourcesOf?.limits?.memory !== undefined }).toEqual({
      requests: ['cpu', 'memory'],
      memoryLimit: true,
    });
  });

  it("puts one transaction-mode Pooler in front of the primary, whose server connections fit the cluster's max_connections", () => {
    expect(
      poolers.map((pooler) => ({
        cluster: (specOf(pooler).cluster as { name: string }).name,
        type: specOf(pooler).type,
        mode: (specOf(pooler).pgbouncer as { poolMode: string }).poolMode,
      })),
    ).toEqual([{ cluster: cluster.metadata.name, type: 'rw', mode: 'transaction' }]);
    const parameters = (specOf(poolers[0]).pgbouncer as { parameters: Record<string, string> }).parameters;
    const maxConnections = Number((specOf(cluster).postgresql as { parameters: Record<string, string> }).parameters['max_connections']);
    // Every service's database and role may hold default_pool_size server connections; the outbox relays' LISTEN connections come on top.
    const listeners = 3 * Number(platformPartitions());
    expect(services.length * Number(parameters['default_pool_size']) + listeners).toBeLessThan(maxConnections);
    // node-postgres sends the pool's idle_in_transaction_session_timeout at connect: PgBouncer refuses a connection whose startup parameter it does not ignore.
    expect(parameters['ignore_startup_parameters']?.split(',')).toContain('idle_in_transaction_session_timeout');
    // The services' named prepared statements: PgBouncer keeps them only with this above zero, and evicts beyond it.
    expect(Number(parameters['max_prepared_statements'])).toBeGreaterThanOrEqual(DEFAULT_PREPARED_STATEMENTS_MAX);
  });

  it("sends every service through the Pooler, and the outbox relays' LISTEN connection straight to the primary", () => {
    const poolerName = poolers[0]?.metadata.name;
    const listenVariables = services.flatMap((service) =>
      [...configVariables(service.config).keys()].filter((name) => name.endsWith('_DATABASE_LISTEN_URL')).map((name) => ({ service: service.name, name })),
    );
    expect(listenVariables.map(({ service }) => service).sort()).toEqual(['disputes', 'payments', 'withdrawals']);
    for (const { service, name } of listenVariables) {
      const container = podOf(
        present(
          resources.find((resource) => resource.kind === 'Deployment' && resource.metadata.name === service),
          `Deployment/${service}`,
        ),
      ).containers[0];
      expect({ service, listen: variableSource(container, name), pooled: variableSource(container, `${envPrefix(service)}_DATABASE_URL`) }).toEqual({
        service,
        listen: { secret: `${service}-database`, key: 'LISTEN_DATABASE_URL' },
        pooled: { secret: `${service}-database`, key: 'DATABASE_URL' },
      });
    }
    expect(poolerName).toBe(`${cluster.metadata.name}-pooler-rw`);
  });

  function platformPartitions(): string {
    return (
      present(resources.find((resource) => resource.kind === 'ConfigMap' && baseName(resource.metadata.name) === 'platform')?.data, 'the platform ConfigMap')[
        'KAFKA_TOPIC_PARTITIONS'
      ] ?? ''
    );
  }
});

/** An ops Job by its app.kubernetes.io/name: its name carries the ops image's tag (migrations-1.0.0). */
function opsJob(resources: Resource[], name: string): Resource {
  const jobs = resources.filter((resource) => resource.kind === 'Job' && resource.metadata.labels?.[NAME_LABEL] === name);
  expect(jobs).toHaveLength(1);
  return jobs[0];
}

/** Where a container's variable comes from: a literal value, or a Secret (name without the hash) and key. */
function variableSource(container: Container, name: string): { value: string } | { secret: string; key: string } | undefined {
  const variable = container.env?.find((candidate) => candidate.name === name);
  if (!variable) return undefined;
  const secretRef = variable.valueFrom?.secretKeyRef;
  return secretRef ? { secret: baseName(secretRef.name), key: secretRef.key } : { value: variable.value ?? '' };
}

/** Which Secret or ConfigMap key a file seen by the container comes from (a volume mounted on a directory of it). */
function fileSource(pod: PodSpec, container: Container, file: string): { from: string; key: string; readOnly: boolean } | undefined {
  const mount = (container.volumeMounts ?? []).find((candidate) => !candidate.subPath && file.startsWith(`${candidate.mountPath.replace(/\/$/, '')}/`));
  const volume = mount && (pod.volumes ?? []).find((candidate) => candidate.name === mount.name);
  if (!mount || !volume) return undefined;
  const relativePath = file.slice(mount.mountPath.replace(/\/$/, '').length + 1);
  const source = volume.secret
    ? { from: `Secret/${baseName(volume.secret.secretName)}`, items: volume.secret.items }
    : volume.configMap
      ? { from: `ConfigMap/${baseName(volume.configMap.name)}`, items: volume.configMap.items }
      : undefined;
  const key = source?.items ? source.items.find((item) => item.path === relativePath)?.key : relativePath;
  return source && key ? { from: source.from, key, readOnly: mount.readOnly === true } : undefined;
}

/** The names of every Secret a workload reads, without the hash. */
const secretsReadBy = (workload: Resource) => {
  const pod = podOf(workload);
  return [
    ...pod.containers.flatMap((container) => [
      ...(container.env ?? []).flatMap((variable) => (variable.valueFrom?.secretKeyRef ? [variable.valueFrom.secretKeyRef.name] : [])),
      ...(container.envFrom ?? []).flatMap((source) => (source.secretRef ? [source.secretRef.name] : [])),
    ]),
    ...(pod.volumes ?? []).flatMap((volume) => (volume.secret ? [volume.secret.secretName] : [])),
  ].map(baseName);
};

/** A catalog name ending so exists once per gateway replica (gateway.replies.<instance>): its ACLs are on the prefix. */
const PER_REPLICA = '<instance>';
const perReplicaPrefix = (name: string) => (name.endsWith(PER_REPLICA) ? name.slice(0, -PER_REPLICA.length) : null);
const isPrefix = (prefix: string | null): prefix is string => prefix !== null;

/**
 * What a service's Kafka principal may do, from the catalog alone (as apps/ops/src/kafka-access.spec.ts
 * reads it): a per-replica topic it consumes is its own (it makes it and reads it in a group of
 * the same name); one it only produces to is written by prefix.
 */
function catalogKafkaAccess(service: CatalogService): KafkaAccess {
  const consumed = service.consumerGroups.flatMap(({ topics }) => topics);
  const ownedPrefixes = [...new Set(consumed.map(perReplicaPrefix).filter(isPrefix))];
  const owned = (name: string) => ownedPrefixes.includes(perReplicaPrefix(name) ?? '');
  return {
    principal: service.name,
    reads: consumed.filter((topic) => !owned(topic)),
    groups: service.consumerGroups.map(({ id }) => id).filter((id) => !owned(id)),
    writes: service.produces.filter((topic) => perReplicaPrefix(topic) === null),
    ownedPrefixes,
    writePrefixes: service.produces
      .map(perReplicaPrefix)
      .filter(isPrefix)
      .filter((prefix) => !ownedPrefixes.includes(prefix)),
  };
}

interface StrimziAcl {
  resource: { type: string; name?: string; patternType?: string };
  operations?: string[];
  operation?: string;
  host?: string;
  type?: string;
}
/** A KafkaUser's ACLs as bindings of aclsOf's shape; a deny or a host rule shows as an extra field, so it never compares equal. */
function bindingsOfKafkaUser(user: Resource): Array<KafkaAclBinding & { type?: string; host?: string }> {
  const authorization = present(
    specOf(user).authorization as { type: string; acls?: StrimziAcl[] } | undefined,
    `the authorization of KafkaUser ${user.metadata.name}`,
  );
  return (authorization.acls ?? []).flatMap((acl) =>
    (acl.operations ?? [acl.operation ?? '']).map((operation) => ({
      principal: `User:${user.metadata.name}`,
      resource: acl.resource.type as KafkaAclBinding['resource'],
      name: acl.resource.name ?? '',
      pattern: acl.resource.patternType === 'prefix' ? 'prefixed' : 'literal',
      operation: operation.toLowerCase() as KafkaAclBinding['operation'],
      ...(acl.type !== undefined && acl.type !== 'allow' ? { type: acl.type } : {}),
      ...(acl.host !== undefined && acl.host !== '*' ? { host: acl.host } : {}),
    })),
  );
}
const canonical = (bindings: object[]) => bindings.map((binding) => JSON.stringify(binding, Object.keys(binding).sort())).sort();
const grantsWrite = (binding: KafkaAclBinding, topic: string) =>
  binding.resource === 'topic' &&
  ['write', 'all'].includes(binding.operation) &&
  (binding.pattern === 'prefixed' ? topic.startsWith(binding.name) : binding.name === topic || binding.name === '*');

/** The broker's own principal (dev), the topics Job's (prod), and one per service: no service may hold another's password. */
const KAFKA_ADMIN_SECRET = 'kafka-admin';
const PROVISIONING_PRINCIPAL = 'provisioning';
const kafkaPasswordSecrets = [
  KAFKA_ADMIN_SECRET,
  PROVISIONING_PRINCIPAL,
  ...services.map(({ name }) => name),
  ...catalog.topics
    .map(({ name }) => name)
    .filter((name) => !name.includes('<'))
    .map(replayPrincipalOf),
];

describe.each(['dev', 'prod'])('Kafka clients of the %s overlay', (overlay) => {
  const resources = render(overlay);
  const workload = (kind: string, name: string) =>
    present(
      resources.find((resource) => resource.kind === kind && resource.metadata.name === name),
      `${kind}/${name}`,
    );
  const platformConfig = present(
    resources.find((resource) => resource.kind === 'ConfigMap' && baseName(resource.metadata.name) === 'platform')?.data,
    'the platform ConfigMap',
  );
  const kafkaCluster = resources.find((resource) => resource.kind === 'Kafka');
  // dev's CA Secret is generated under this name; Strimzi names its cluster CA `<cluster>-cluster-ca-cert`.
  const caSecret = overlay === 'dev' ? 'kafka-cluster-ca-cert' : `${present(kafkaCluster, 'the Strimzi Kafka').metadata.name}-cluster-ca-cert`;
  const caFile = platformConfig['KAFKA_SSL_CA_FILE'];

  it('connects to the broker over SASL_SSL (SCRAM-SHA-512), trusting the broker CA from its file', () => {
    expect({
      protocol: platformConfig['KAFKA_SECURITY_PROTOCOL'],
      mechanism: platformConfig['KAFKA_SASL_MECHANISM'] ?? 'SCRAM-SHA-512',
      caFile: /^\/etc\/.+\.crt$/.test(caFile ?? ''),
    }).toEqual({ protocol: 'SASL_SSL', mechanism: 'SCRAM-SHA-512', caFile: true });
    const tlsListener =
      kafkaCluster && (specOf(kafkaCluster).kafka as { listeners: Array<{ name: string; port: number }> }).listeners.find(({ name }) => name === 'tls');
    expect(platformConfig['KAFKA_BROKERS']).toBe(overlay === 'dev' ? 'kafka:9092' : `${kafkaCluster?.metadata.name}-kafka-bootstrap:${tlsListener?.port}`);
  });

  it.each(services.map(({ name }) => [name]))(
    'runs %s as its own principal: username the service name, password and CA from Secrets, mounted read-only',
    (name) => {
      const deployment = workload('Deployment', name);
      const container = podOf(deployment).containers[0];
      expect({
        username: variableSource(container, 'KAFKA_SASL_USERNAME'),
        password: variableSource(container, 'KAFKA_SASL_PASSWORD'),
        ca: fileSource(podOf(deployment), container, caFile),
        otherKafkaPasswords: secretsReadBy(deployment).filter((secret) => secret !== name && kafkaPasswordSecrets.includes(secret)),
      }).toEqual({
        username: { value: name },
        // The Secret Strimzi's User Operator makes for the KafkaUser of that name (prod), generated in dev.
        password: { secret: name, key: 'password' },
        ca: { from: `Secret/${caSecret}`, key: 'ca.crt', readOnly: true },
        otherKafkaPasswords: [],
      });
    },
  );

  it(
    overlay === 'dev'
      ? 'runs the topics Job as the admin, making the topics and the ACLs'
      : 'runs no topics Job, and no service creates a topic (KAFKA_CREATE_TOPICS=false): the Topic Operator makes them',
    () => {
      if (overlay === 'prod') {
        expect({
          topicsJobs: resources.filter((resource) => resource.kind === 'Job' && resource.metadata.labels?.[NAME_LABEL] === 'topics').length,
          createTopics: platformConfig['KAFKA_CREATE_TOPICS'],
        }).toEqual({ topicsJobs: 0, createTopics: 'false' });
        return;
      }
      const job = opsJob(resources, 'topics');
      const container = podOf(job).containers[0];
      expect({
        args: container.args,
        username: variableSource(container, 'KAFKA_SASL_USERNAME'),
        password: variableSource(container, 'KAFKA_SASL_PASSWORD'),
        ca: fileSource(podOf(job), container, caFile),
      }).toEqual({
        args: ['--steps', 'topics,kafka-access'],
        username: { value: 'admin' },
        password: { secret: KAFKA_ADMIN_SECRET, key: 'password' },
        ca: { from: `Secret/${caSecret}`, key: 'ca.crt', readOnly: true },
      });
    },
  );
});

describe('Kafka in the prod overlay: Strimzi, a KafkaUser per service with its ACLs', () => {
  const resources = render('prod');
  const kafkaCluster = present(
    resources.find((resource) => resource.kind === 'Kafka'),
    'the Strimzi Kafka',
  );
  const kafkaUsers = resources.filter((resource) => resource.kind === 'KafkaUser');
  const namespace =
    present(resources.find((resource) => resource.kind === 'ConfigMap' && baseName(resource.metadata.name) === 'platform')?.data, 'the platform ConfigMap')[
      'KAFKA_NAMESPACE'
    ] ?? '';
  const userNamed = (name: string) =>
    present(
      kafkaUsers.find((user) => user.metadata.name === name),
      `KafkaUser ${name}`,
    );
  const inNamespace = (topic: string) => (namespace ? `${namespace}.${topic}` : topic);

  it('listens only with TLS and SCRAM-SHA-512, enforces ACLs, and runs the User Operator', () => {
    const kafka = specOf(kafkaCluster).kafka as {
      listeners: Array<{ name: string; port: number; tls: boolean; authentication?: { type: string } }>;
      authorization?: { type: string };
    };
    expect(kafka.listeners.map(({ name, port, tls, authentication }) => ({ name, port, tls, authentication: authentication?.type }))).toEqual([
      { name: 'tls', port: 9093, tls: true, authentication: 'scram-sha-512' },
    ]);
    expect(kafka.authorization?.type).toBe('simple');
    expect((specOf(kafkaCluster).entityOperator as { userOperator?: object } | undefined)?.userOperator).toBeDefined();
  });

  const replayedTopics = catalog.topics.map(({ name }) => name).filter((name) => !name.includes('<'));

  it('has one KafkaUser per catalog service and one replay principal per topic, all SCRAM-SHA-512 users of this cluster', () => {
    expect(kafkaUsers.map((user) => user.metadata.name).sort()).toEqual([...services.map(({ name }) => name), ...replayedTopics.map(replayPrincipalOf)].sort());
    for (const user of kafkaUsers) {
      expect({
        user: user.metadata.name,
        cluster: user.metadata.labels?.['strimzi.io/cluster'],
        authentication: (specOf(user).authentication as { type: string }).type,
      }).toEqual({
        user: user.metadata.name,
        cluster: kafkaCluster.metadata.name,
        authentication: 'scram-sha-512',
      });
    }
  });

  it.each(services.map((service) => [service.name, service] as const))(
    "grants %s exactly the ACLs init's kafka-access step makes (aclsOf the catalog's access)",
    (name, service) => {
      expect(canonical(bindingsOfKafkaUser(userNamed(name)))).toEqual(canonical(aclsOf(catalogKafkaAccess(service), namespace, deadLetterTopicOf)));
    },
  );

  it('lets no principal create a topic but the gateway its own reply topics: the Topic Operator makes the others', () => {
    const creators = kafkaUsers.flatMap((user) =>
      bindingsOfKafkaUser(user)
        .filter((binding) => ['create', 'all'].includes(binding.operation) && ['topic', 'cluster'].includes(binding.resource))
        .map((binding) => `${user.metadata.name}: ${binding.resource} ${binding.name} ${binding.pattern}`),
    );
    expect(creators).toEqual([`gateway: topic ${inNamespace('gateway.replies.')} prefixed`]);
  });

  it("declares every topic of the code's catalog, and its dead-letter topic, as a KafkaTopic with the catalog's partitions and retention", () => {
    // The topics the code names (what init's topics step makes: apps/ops/src/provision.ts, CATALOG_TOPICS), which the catalog lists too.
    const codeTopics = [PAYMENTS_TOPICS, WITHDRAWALS_TOPICS, DISPUTES_TOPICS].flatMap((topics) => Object.values(topics) as string[]);
    expect([...codeTopics].sort()).toEqual(
      catalog.topics
        .map(({ name }) => name)
        .filter((name) => perReplicaPrefix(name) === null)
        .sort(),
    );
    const partitions = Number(
      present(resources.find((resource) => resource.kind === 'ConfigMap' && baseName(resource.metadata.name) === 'platform')?.data, 'the platform ConfigMap')[
        'KAFKA_TOPIC_PARTITIONS'
      ],
    );
    const brokerConfig = (specOf(kafkaCluster).kafka as { config: Record<string, unknown> }).config;
    const declared = resources
      .filter((resource) => resource.kind === 'KafkaTopic')
      .map((topic) => {
        const spec = specOf(topic) as { topicName?: string; partitions: number; replicas: number; config?: Record<string, unknown> };
        return {
          topic: spec.topicName ?? topic.metadata.name,
          cluster: topic.metadata.labels?.['strimzi.io/cluster'],
          partitions: spec.partitions,
          replicas: spec.replicas,
          retentionMs: Number(spec.config?.['retention.ms']),
          minInSync: spec.config?.['min.insync.replicas'],
        };
      })
      .sort((left, right) => left.topic.localeCompare(right.topic));
    const expected = codeTopics
      .flatMap((topic) => [
        { topic: inNamespace(topic), partitions, retentionMs: catalog.kafka.retentionMs },
        { topic: inNamespace(deadLetterTopicOf(topic)), partitions: catalog.kafka.deadLetterPartitions, retentionMs: catalog.kafka.deadLetterRetentionMs },
      ])
      .map((topic) => ({
        ...topic,
        cluster: kafkaCluster.metadata.name,
        replicas: brokerConfig['default.replication.factor'],
        minInSync: brokerConfig['min.insync.replicas'],
      }))
      .sort((left, right) => left.topic.localeCompare(right.topic));
    expect(declared).toEqual(expected);
    expect((specOf(kafkaCluster).entityOperator as { topicOperator?: object } | undefined)?.topicOperator).toBeDefined();
  });

  it.each(replayedTopics.map((topic) => [replayPrincipalOf(topic), topic] as const))(
    "grants the replay principal %s exactly the ACLs init's kafka-access step makes: its dead letters in, %s out",
    (name, topic) => {
      const access: KafkaAccess = { principal: name, reads: [], groups: [], writes: [], replays: [topic] };
      expect(canonical(bindingsOfKafkaUser(userNamed(name)))).toEqual(canonical(aclsOf(access, namespace, deadLetterTopicOf)));
    },
  );

  it("lets only the gateway's principal write the command topics, and the topic's replay principal (an operator's, no pod's)", () => {
    const commandTopics = catalog.topics.map(({ name }) => name).filter((name) => name.endsWith('.commands'));
    expect(commandTopics.length).toBeGreaterThan(0);
    const writers = (topic: string) =>
      kafkaUsers
        .filter((user) => bindingsOfKafkaUser(user).some((binding) => grantsWrite(binding, inNamespace(topic))))
        .map((user) => user.metadata.name)
        .sort();
    expect(Object.fromEntries(commandTopics.map((topic) => [topic, writers(topic)]))).toEqual(
      Object.fromEntries(commandTopics.map((topic) => [topic, [replayPrincipalOf(topic), 'gateway']])),
    );
  });
});

describe('Kafka in the dev overlay: the secured broker and users of compose', () => {
  const resources = render('dev');
  const workload = (kind: string, name: string) =>
    present(
      resources.find((resource) => resource.kind === kind && resource.metadata.name === name),
      `${kind}/${name}`,
    );
  const scripts = () =>
    present(
      resources.find((resource) => resource.kind === 'ConfigMap' && baseName(resource.metadata.name) === 'kafka-scripts')?.data,
      'the kafka-scripts ConfigMap',
    );
  /** The script a container runs as `bash <script>`, and whether it is deploy/kafka's, byte for byte. */
  const scriptRun = (pod: PodSpec, container: Container) => {
    const [shell, script] = [...(container.command ?? []), ...(container.args ?? [])];
    const source = fileSource(pod, container, script ?? '');
    const sameAsRepository = source?.from === 'ConfigMap/kafka-scripts' && scripts()[source.key] === read(`deploy/kafka/${source.key}`);
    return { shell, script: source?.key, sameAsRepository };
  };

  it('runs the broker with deploy/kafka/start-secured-broker.sh, its keystore and the CA where the script reads them', () => {
    const broker = workload('StatefulSet', 'kafka');
    const pod = podOf(broker);
    const container = pod.containers[0];
    expect({
      runs: scriptRun(pod, container),
      adminPassword: variableSource(container, 'KAFKA_ADMIN_PASSWORD'),
      advertisedHost: variableSource(container, 'KAFKA_ADVERTISED_HOST'),
      keystore: fileSource(pod, container, '/etc/kafka/tls/broker/broker.p12'),
      keystorePassword: fileSource(pod, container, '/etc/kafka/tls/broker/broker.password'),
      trust: fileSource(pod, container, '/etc/kafka/tls/trust/ca.pem'),
      // The admin client settings the script writes: the probe authenticates like every client.
      readiness: (container.readinessProbe as { exec?: { command: string[] } } | undefined)?.exec?.command.slice(-2),
    }).toEqual({
      runs: { shell: 'bash', script: 'start-secured-broker.sh', sameAsRepository: true },
      adminPassword: { secret: KAFKA_ADMIN_SECRET, key: 'password' },
      advertisedHost: { value: 'kafka' },
      keystore: { from: 'Secret/kafka-broker-tls', key: 'broker.p12', readOnly: true },
      keystorePassword: { from: 'Secret/kafka-broker-tls', key: 'broker.password', readOnly: true },
      trust: { from: 'Secret/kafka-cluster-ca-cert', key: 'ca.crt', readOnly: true },
      readiness: ['--command-config', '/tmp/admin-client.properties'],
    });
  });

  it("sets every service's SCRAM credential with deploy/kafka/set-service-users.sh, from the Secret the service reads, then each replay principal's", () => {
    const job = workload('Job', 'kafka-users');
    const pod = podOf(job);
    const container = pod.containers[0];
    const [, , bootstrap, ...arguments_] = [...(container.command ?? []), ...(container.args ?? [])];
    const optional = arguments_.indexOf('--optional');
    const replayPrincipals = catalog.topics
      .map(({ name }) => name)
      .filter((name) => !name.includes('<'))
      .map(replayPrincipalOf);
    expect({
      runs: scriptRun(pod, container),
      bootstrap,
      users: arguments_.slice(0, optional).sort(),
      replayUsers: arguments_.slice(optional + 1).sort(),
    }).toEqual({
      runs: { shell: 'bash', script: 'set-service-users.sh', sameAsRepository: true },
      bootstrap: 'kafka:9092',
      users: services.map(({ name }) => name).sort(),
      replayUsers: [...replayPrincipals].sort(),
    });
    for (const name of replayPrincipals) {
      expect({ name, password: variableSource(container, `${name.toUpperCase().replaceAll('-', '_')}_KAFKA_PASSWORD`) }).toEqual({
        name,
        password: { secret: name, key: 'password' },
      });
    }
    expect({
      admin: variableSource(container, 'KAFKA_ADMIN_PASSWORD'),
      ca: fileSource(pod, container, (variableSource(container, 'KAFKA_CA_FILE') as { value?: string } | undefined)?.value ?? ''),
    }).toEqual({
      admin: { secret: KAFKA_ADMIN_SECRET, key: 'password' },
      ca: { from: 'Secret/kafka-cluster-ca-cert', key: 'ca.crt', readOnly: true },
    });
    for (const { name } of services) {
      expect({ name, password: variableSource(container, `${envPrefix(name)}_KAFKA_PASSWORD`) }).toEqual({ name, password: { secret: name, key: 'password' } });
    }
  });
});
