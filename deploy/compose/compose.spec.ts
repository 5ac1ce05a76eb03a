/**
 * Goal: docker-compose.yml runs what the service catalog (deploy/catalog/services.json) says,
 * works with docker-compose 1.29 as well as `docker compose` v2, and publishes nothing but the
 * gateway. The smoke test (npm run compose:smoke) runs the file; this checks what a run cannot
 * show: the keys 1.29 rejects, the ports and health paths against the catalog, what is published.
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { heapFlagsOf, MALLOC_ARENAS, memoryMiB, memoryNeededMb } from '../heap-limits';

interface CatalogService {
  name: string;
  entry: string;
  devPort: number;
  health: { live: string; ready: string };
}
interface ComposeService {
  image?: string;
  build?: { context: string; target?: string; args?: Record<string, string> };
  command?: string[];
  entrypoint?: string[];
  ports?: string[];
  environment?: Record<string, string | number>;
  depends_on?: Record<string, { condition: string }>;
  restart?: string;
  healthcheck?: { test: string[] };
  profiles?: string[];
  init?: boolean;
  volumes?: string[];
  [key: string]: unknown;
}

const repositoryRoot = resolve(__dirname, '../..');
const read = (path: string) => readFileSync(join(repositoryRoot, path), 'utf8');
const catalog = JSON.parse(read('deploy/catalog/services.json')) as { services: CatalogService[]; topics: Array<{ name: string }> };
const composeText = read('docker-compose.yml');
// merge: true resolves the `<<: *anchor` keys the way compose does.
const compose = parse(composeText, { merge: true }) as { services: Record<string, ComposeService>; volumes: Record<string, unknown>; [key: string]: unknown };
const envPrefix = (name: string) => name.toUpperCase().replaceAll('-', '_');
const INFRASTRUCTURE = ['postgres', 'kafka'];
const ONE_SHOTS = ['kafka-tls', 'kafka-users', 'init', 'demo', 'bootstrap-operator', 'projection-rebuild'];

describe('docker-compose.yml and the service catalog', () => {
  it("runs the demo job and the first operator's bootstrap only under their profiles (they print credentials), and the projection rebuild only when asked for", () => {
    expect(compose.services.demo.profiles).toEqual(['demo']);
    expect(compose.services['bootstrap-operator'].profiles).toEqual(['bootstrap']);
    expect(compose.services['projection-rebuild'].profiles).toEqual(['rebuild']);
    for (const [name, service] of Object.entries(compose.services))
      if (!['demo', 'bootstrap-operator', 'projection-rebuild'].includes(name))
        expect({ name, profiles: service.profiles }).toEqual({ name, profiles: undefined });
  });

  it('runs exactly the catalog services, the infrastructure and the one-shots', () => {
    expect(Object.keys(compose.services).sort()).toEqual([...catalog.services.map(({ name }) => name), ...INFRASTRUCTURE, ...ONE_SHOTS].sort());
  });

  it.each(catalog.services.map((service) => [service.name, service] as const))(
    '%s: its image, its catalog port on every interface, and its health checked',
    (name, service) => {
      const app = compose.services[name];
      expect(app.build).toEqual({ context: '.', args: { SERVICE: name } });
      expect(app.image).toBe(`merchant-payments/${name}:\${IMAGE_TAG:-latest}`);
      expect(app.environment?.[`${envPrefix(name)}_HTTP_PORT`]).toBe(service.devPort);
      expect(app.environment?.[`${envPrefix(name)}_HTTP_HOST`]).toBe('0.0.0.0');
      expect(app.environment?.[`${envPrefix(name)}_DATABASE_URL`]).toMatch(
        new RegExp(`^postgres://${name}:\\$\\{${envPrefix(name)}_DB_PASSWORD:-\\}@postgres:5432/${name}$`),
      );
      // The image's HEALTHCHECK (generated from the catalog's health.ready) is the check: no override.
      expect(app.healthcheck).toBeUndefined();
      expect(app.restart).toBe('unless-stopped');
      expect(app.init).toBe(true);
      expect(app.depends_on?.init).toEqual({ condition: 'service_completed_successfully' });
      expect(app.depends_on?.kafka).toEqual({ condition: 'service_healthy' });
      expect(app.depends_on?.postgres).toEqual({ condition: 'service_healthy' });
    },
  );

  it("every service's internal URL is HTTPS, naming the service and its catalog port", () => {
    const environment = compose.services.gateway.environment ?? {};
    for (const service of catalog.services.filter(({ name }) => name !== 'gateway')) {
      expect(environment[`${envPrefix(service.name)}_INTERNAL_URL`]).toBe(`https://${service.name}:${service.devPort}`);
    }
    expect(compose.services.callbacks.environment?.GATEWAY_INTERNAL_URL).toBe(
      `https://gateway:${compose.services.gateway.environment?.GATEWAY_INTERNAL_HTTP_PORT}`,
    );
  });

  it('every service serves its own internal listener keystore, made by kafka-tls for its name, and trusts the platform CA', () => {
    const maker = compose.services['kafka-tls'];
    const made = maker?.entrypoint ?? [];
    for (const { name } of catalog.services) {
      const app = compose.services[name];
      const environment = app.environment ?? {};
      const ownVolume = `internal-tls-${name}`;
      // Its own keystore only: a compromised container holds no other service's key.
      expect((app.volumes ?? []).filter((volume) => String(volume).startsWith('internal-tls-'))).toEqual([
        `${ownVolume}:/etc/merchant-payments/internal-tls:ro`,
      ]);
      expect(environment['INTERNAL_TLS_KEYSTORE_FILE']).toBe('/etc/merchant-payments/internal-tls/keystore.p12');
      expect(environment['INTERNAL_TLS_KEYSTORE_PASSWORD_FILE']).toBe('/etc/merchant-payments/internal-tls/keystore.password');
      expect(environment['NODE_EXTRA_CA_CERTS']).toBe(environment['KAFKA_SSL_CA_FILE']);
      expect(made).toContain(`/tls/internal/${name}=dns:${name},dns:localhost,ip:127.0.0.1`);
      expect(maker?.volumes).toContain(`${ownVolume}:/tls/internal/${name}`);
    }
  });

  it('the image health check probes each catalog service on its health.ready path and port: service_healthy means ready', () => {
    const stage = read('tools/docker/stage-images.mjs');
    expect(stage).toContain('${health.ready}');
    expect(stage).not.toContain('${health.live}');
    expect(stage).toContain('_HTTP_PORT');
    expect(read('Dockerfile')).toMatch(/HEALTHCHECK [^\n]*CMD \["node", "healthcheck\.js"\]/);
  });

  it('publishes only the gateway, on 127.0.0.1 unless configured otherwise', () => {
    const published = Object.entries(compose.services).filter(([, service]) => service.ports?.length);
    expect(published.map(([name]) => name)).toEqual(['gateway']);
    expect(compose.services.gateway.ports).toEqual(['${GATEWAY_PUBLISH_ADDRESS:-127.0.0.1}:${GATEWAY_PUBLISH_PORT:-3000}:3000']);
    expect(read('.env.example')).toMatch(/^GATEWAY_PUBLISH_ADDRESS=127\.0\.0\.1$/m);
  });

  it('lets consumers scale: no fixed container names, no host ports', () => {
    for (const service of catalog.services.filter(({ name }) => name !== 'gateway')) {
      expect(compose.services[service.name].container_name).toBeUndefined();
      expect(compose.services[service.name].ports).toBeUndefined();
    }
  });

  it('gives Kafka and PostgreSQL a health check and a named volume each', () => {
    for (const name of INFRASTRUCTURE) {
      expect(compose.services[name].healthcheck?.test.length).toBeGreaterThan(1);
      const volumes = (compose.services[name].volumes ?? []).map((volume) => volume.split(':')[0]).filter((source) => !source.startsWith('.'));
      expect(Object.keys(compose.volumes)).toEqual(expect.arrayContaining(volumes));
      expect(volumes).toContain(`${name}-data`);
    }
    expect(compose.services.kafka.image).toMatch(/^apache\/kafka:4\.\d+\.\d+$/);
    expect(compose.services.kafka.command).toEqual(['bash', '/opt/merchant-payments/kafka/start-secured-broker.sh']);
    // Pinned to a patch release (and Debian release), never a moving major tag.
    expect(compose.services.postgres.image).toMatch(/^postgres:15\.\d+-bookworm$/);
  });

  it('runs Kafka secured: every service is its own SASL_SSL principal, init grants the ACLs as the admin, no one else holds the admin password', () => {
    for (const { name } of catalog.services) {
      const environment = compose.services[name].environment ?? {};
      expect({
        name,
        protocol: environment.KAFKA_SECURITY_PROTOCOL,
        user: environment.KAFKA_SASL_USERNAME,
        password: environment.KAFKA_SASL_PASSWORD,
        ca: environment.KAFKA_SSL_CA_FILE,
      }).toEqual({
        name,
        protocol: 'SASL_SSL',
        user: name,
        password: `\${${envPrefix(name)}_KAFKA_PASSWORD:-}`,
        ca: '/etc/merchant-payments/kafka-tls/ca.pem',
      });
      // The Kafka CA only, and the service's own listener keystore: no other TLS material.
      expect(compose.services[name].volumes).toEqual([
        'kafka-tls-trust:/etc/merchant-payments/kafka-tls:ro',
        `internal-tls-${name}:/etc/merchant-payments/internal-tls:ro`,
      ]);
    }
    expect(compose.services.init.command).toContain('databases,migrations,topics,kafka-access');
    expect(compose.services.init.environment?.KAFKA_SASL_USERNAME).toBe('admin');
    // The services' users, then (made only when their passwords are set) one replay principal per topic of the catalog.
    const users = compose.services['kafka-users'].entrypoint?.slice(3) ?? [];
    const optional = users.indexOf('--optional');
    expect(users.slice(0, optional).sort()).toEqual(catalog.services.map(({ name }) => name).sort());
    const catalogTopics = catalog.topics.map(({ name }) => name).filter((name) => !name.includes('<'));
    expect(users.slice(optional + 1).sort()).toEqual(catalogTopics.map((topic) => `dlq-replay-${topic.replaceAll('.', '-')}`).sort());
    for (const user of users.slice(optional + 1)) {
      const variable = `${user.toUpperCase().replaceAll('-', '_')}_KAFKA_PASSWORD`;
      expect(compose.services['kafka-users'].environment?.[variable]).toBe(`\${${variable}:-}`);
    }
    const holdsAdminPassword = Object.entries(compose.services)
      .filter(([, service]) => JSON.stringify(service.environment ?? {}).includes('KAFKA_ADMIN_PASSWORD'))
      .map(([name]) => name);
    expect(holdsAdminPassword.sort()).toEqual(['init', 'kafka', 'kafka-users']);
    // The CA's private key is mounted by the job that signs with it, nowhere else.
    const mountsCaKey = Object.entries(compose.services)
      .filter(([, service]) => (service.volumes ?? []).some((volume) => volume.startsWith('kafka-tls-ca:')))
      .map(([name]) => name);
    expect(mountsCaKey).toEqual(['kafka-tls']);
  });

  it('uses none of the keys docker-compose 1.29 rejects, so v2 and 1.29 both run it', () => {
    expect(
      Object.keys(compose)
        .filter((key) => !key.startsWith('x-'))
        .sort(),
    ).toEqual(['services', 'volumes']);
    for (const [name, service] of Object.entries(compose.services)) {
      const keys = Object.keys(service);
      expect({ name, rejected: keys.filter((key) => ['develop', 'pull_policy', 'env_file'].includes(key)) }).toEqual({ name, rejected: [] });
      expect({ name, startInterval: (service.healthcheck as Record<string, unknown> | undefined)?.start_interval }).toEqual({ name, startInterval: undefined });
      for (const [dependency, condition] of Object.entries(service.depends_on ?? {}))
        expect({ name, dependency, keys: Object.keys(condition) }).toEqual({ name, dependency, keys: ['condition'] });
      expect({ name, additionalContexts: service.build && 'additional_contexts' in service.build }).toEqual({
        name,
        additionalContexts: service.build ? false : undefined,
      });
    }
  });

  it("gives init each database's migration role, which owns it, and no service that role's password (only the operators' projection rebuild, run by hand)", () => {
    for (const { name } of catalog.services) {
      expect(compose.services.init.environment?.[`${envPrefix(name)}_MIGRATION_DATABASE_URL`]).toBe(
        `postgres://${name}_migrator:\${${envPrefix(name)}_MIGRATION_DB_PASSWORD:-}@postgres:5432/${name}`,
      );
    }
    for (const [variable, url] of Object.entries(compose.services['projection-rebuild'].environment ?? {}))
      expect(compose.services.init.environment?.[variable]).toBe(url);
    const holders = Object.entries(compose.services).filter(
      ([name, service]) => !['init', 'projection-rebuild'].includes(name) && JSON.stringify(service.environment ?? {}).includes('_MIGRATION_'),
    );
    expect(holders.map(([name]) => name)).toEqual([]);
  });

  it('needs no .env to be read (docker-compose config -q on a fresh clone): no ${VAR:?…} that stops interpolation', () => {
    expect(composeText.match(/\$\{[A-Z0-9_]+:\?/g)).toBeNull();
  });

  it('documents every variable the file reads in .env.example', () => {
    const variables = new Set([...composeText.matchAll(/\$\{([A-Z0-9_]+)[:}]/g)].map(([, variable]) => variable));
    const documented = new Set([...read('.env.example').matchAll(/^([A-Z0-9_]+)=/gm)].map(([, variable]) => variable));
    expect([...variables].filter((variable) => !documented.has(variable) && variable !== 'KAFKA_CLUSTER_ID')).toEqual([]);
  });

  it("rotates every container's log and limits its memory and CPU", () => {
    for (const [name, service] of Object.entries(compose.services)) {
      const logging = service.logging as { driver: string; options: Record<string, string> } | undefined;
      const limits = (service.deploy as { resources?: { limits?: { cpus?: string; memory?: string } } } | undefined)?.resources?.limits;
      expect({ name, driver: logging?.driver, maxSize: logging?.options['max-size'], maxFile: logging?.options['max-file'] }).toEqual({
        name,
        driver: 'json-file',
        maxSize: expect.any(String),
        maxFile: expect.any(String),
      });
      expect({ name, memory: limits?.memory, cpus: limits?.cpus }).toEqual({ name, memory: expect.stringMatching(/^\d+[MG]$/), cpus: expect.any(String) });
    }
  });

  it.each(catalog.services.map(({ name }) => [name]))(
    '%s: runs under heap limits (NODE_OPTIONS) that its memory limit has room for, with two malloc arenas',
    (name) => {
      const service = compose.services[name];
      const flags = heapFlagsOf(String(service.environment?.NODE_OPTIONS ?? ''));
      const limit = (service.deploy as { resources?: { limits?: { memory?: string } } } | undefined)?.resources?.limits?.memory;
      expect({ name, flags: flags !== null }).toEqual({ name, flags: true });
      expect({ name, fits: flags !== null && limit !== undefined && memoryMiB(limit, 'compose') >= memoryNeededMb(flags) }).toEqual({ name, fits: true });
      expect({ name, mallocArenas: service.environment?.MALLOC_ARENA_MAX }).toEqual({ name, mallocArenas: MALLOC_ARENAS });
    },
  );

  it('drops every capability everywhere but PostgreSQL, and runs read-only wherever nothing writes outside a volume', () => {
    const readOnly = [...catalog.services.map(({ name }) => name), 'init', 'demo', 'bootstrap-operator', 'projection-rebuild', 'kafka-tls'];
    for (const [name, service] of Object.entries(compose.services)) {
      const expected = name === 'postgres' ? { capDrop: undefined, noNewPrivileges: false } : { capDrop: ['ALL'], noNewPrivileges: true };
      expect({
        name,
        capDrop: service.cap_drop,
        noNewPrivileges: ((service.security_opt as string[] | undefined) ?? []).includes('no-new-privileges:true'),
      }).toEqual({ name, ...expected });
      expect({ name, readOnly: service.read_only === true, tmp: ((service.tmpfs as string[] | undefined) ?? []).includes('/tmp') }).toEqual({
        name,
        readOnly: readOnly.includes(name),
        tmp: readOnly.includes(name),
      });
    }
  });

  it('names every public image by a pinned release, never a moving major tag', () => {
    const publicImages = Object.values(compose.services)
      .map(({ image }) => image ?? '')
      .filter((image) => !image.startsWith('merchant-payments/'));
    expect(publicImages.length).toBeGreaterThan(0);
    for (const image of publicImages) expect(image).toMatch(/^[a-z/]+:\d+\.\d+(\.\d+)?(-[a-z]+)?$/);
  });
});
