/**
 * Goal: `init` (compose's init service, the Kubernetes Jobs) provisions a deployment and can be
 * rerun: one role and database per service, closed to the other services; a changed password
 * in a service's URL is applied on the next run; every service's migrations as its own role;
 * the catalog's topics. Method: the provisioning functions against the real PostgreSQL server
 * and Kafka broker of the test run, with role and database names of this test's own.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deadLetterTopicOf, KafkaMessageBroker } from '@mp/shared-messaging';
import { ConfigError, ConfigReader, readKafkaConnectionConfig } from '@mp/shared-util-config';
import { Client } from 'pg';
import { CATALOG_TOPICS, ensureCatalogTopics, ensureServiceDatabases, readProvisioningConfig, runServiceMigrations, SERVICE_MIGRATIONS, type ProvisioningConfig } from './provision';

const adminUrl = process.env.TEST_PG_ADMIN_URL as string;
const prefix = `prov_${randomBytes(3).toString('hex')}`;
const password = (service: string, generation = 1) => `pw-${service}-${generation}-${prefix}`;

/** The environment compose gives init, with this test's names: role and database `<prefix>_<service>`. */
function environment(generation = 1): Record<string, string> {
  const server = new URL(adminUrl);
  const urls = Object.keys(SERVICE_MIGRATIONS).map((service) => {
    const url = new URL(`postgres://${server.host}`);
    url.username = `${prefix}_${service}`;
    url.password = password(service, generation);
    url.pathname = `/${prefix}_${service}`;
    return [`${service.toUpperCase()}_DATABASE_URL`, url.toString()];
  });
  return { POSTGRES_ADMIN_URL: adminUrl, ...Object.fromEntries(urls) };
}

function config(generation = 1): ProvisioningConfig {
  const reader = new ConfigReader(environment(generation));
  const provisioning = readProvisioningConfig(reader, { needsAdmin: true });
  reader.assertValid();
  return provisioning;
}

async function canConnect(url: string): Promise<string> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return 'connected';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  } finally {
    await client.end().catch(() => undefined);
  }
}

const serviceUrl = (service: string, generation = 1) => config(generation).services.find((database) => database.service === service)?.url as string;
/** `service`'s role and password, pointed at `otherService`'s database. */
function crossUrl(service: string, otherService: string): string {
  const url = new URL(serviceUrl(service));
  url.pathname = `/${prefix}_${otherService}`;
  return url.toString();
}

describe('init: databases, migrations and topics', () => {
  afterAll(async () => {
    const admin = new Client({ connectionString: adminUrl });
    await admin.connect();
    for (const service of Object.keys(SERVICE_MIGRATIONS)) {
      await admin.query(`DROP DATABASE IF EXISTS "${prefix}_${service}" WITH (FORCE)`);
      await admin.query(`DROP ROLE IF EXISTS "${prefix}_${service}"`);
    }
    await admin.end();
  });

  it('names the same services as the service catalog', () => {
    const catalog = JSON.parse(readFileSync(join(__dirname, '../../../deploy/catalog/services.json'), 'utf8')) as { services: Array<{ name: string }>; topics: Array<{ name: string }> };
    expect(Object.keys(SERVICE_MIGRATIONS).sort()).toEqual(catalog.services.map(({ name }) => name).sort());
    expect([...CATALOG_TOPICS].sort()).toEqual(catalog.topics.map(({ name }) => name).filter((name) => !name.includes('<')).sort());
  });

  it('makes one role and one database per service, each closed to the other services, and a rerun changes nothing', async () => {
    expect(await ensureServiceDatabases(config())).toMatch(/^made role .*_ledger, database .*_ledger, /);
    expect(await ensureServiceDatabases(config())).toBe('6 databases already in place');
    expect(await canConnect(serviceUrl('payments'))).toBe('connected');
    expect(await canConnect(serviceUrl('ledger'))).toBe('connected');
    // 42501: insufficient privilege (CONNECT revoked from PUBLIC): payments' role cannot open the ledger's database.
    expect(await canConnect(crossUrl('payments', 'ledger'))).toBe('42501');
    expect(await canConnect(crossUrl('gateway', 'payments'))).toBe('42501');
  });

  it("applies a changed password from the service's URL on the next run", async () => {
    await ensureServiceDatabases(config());
    await ensureServiceDatabases(config(2));
    expect(await canConnect(serviceUrl('callbacks', 2))).toBe('connected');
    // 28P01: invalid password.
    expect(await canConnect(serviceUrl('callbacks', 1))).toBe('28P01');
    await ensureServiceDatabases(config());
  });

  it("runs every service's migrations as that service's role, once", async () => {
    await ensureServiceDatabases(config());
    expect(await runServiceMigrations(config())).toMatch(/^applied ledger \d+, disputes \d+, payments \d+, withdrawals \d+, gateway \d+, callbacks \d+$/);
    expect(await runServiceMigrations(config())).toBe('every service is up to date');
    const ledger = new Client({ connectionString: serviceUrl('ledger') });
    await ledger.connect();
    const owners = await ledger.query<{ owner: string }>("SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'");
    await ledger.end();
    expect(owners.rows.map(({ owner }) => owner)).toEqual([`${prefix}_ledger`]);
  });

  it("refuses a service URL without a user or a database, naming the variable, and needs the admin URL only for the databases step", () => {
    const reader = new ConfigReader({ ...environment(), PAYMENTS_DATABASE_URL: 'postgres://postgres:5432' });
    readProvisioningConfig(reader, { needsAdmin: true });
    expect(() => reader.assertValid()).toThrow(ConfigError);
    expect(() => reader.assertValid()).toThrow(/PAYMENTS_DATABASE_URL must name a user and a database/);
    const withoutAdmin = new ConfigReader({ ...environment(), POSTGRES_ADMIN_URL: '' });
    readProvisioningConfig(withoutAdmin, { needsAdmin: false });
    expect(() => withoutAdmin.assertValid()).not.toThrow();
  });

  it("makes the catalog's topics with the configured partitions and their dead-letter topics, and a rerun makes none", async () => {
    const namespace = `${prefix.replaceAll('_', '-')}`;
    const reader = new ConfigReader({ KAFKA_BROKERS: process.env.KAFKA_BROKERS, KAFKA_NAMESPACE: namespace, KAFKA_TOPIC_PARTITIONS: '3' });
    const kafka = readKafkaConnectionConfig(reader);
    reader.assertValid();
    expect(await ensureCatalogTopics(kafka)).toBe(`made ${CATALOG_TOPICS.join(', ')} (3 partitions each)`);
    expect(await ensureCatalogTopics(kafka)).toBe(`${CATALOG_TOPICS.length} topics already in place`);
    const broker = new KafkaMessageBroker({ clientId: 'provision-spec', brokers: kafka.kafkaBrokers, namespace, log: () => undefined });
    const deadLetters = CATALOG_TOPICS.map(deadLetterTopicOf);
    expect((await broker.existingTopics([...CATALOG_TOPICS, ...deadLetters])).size).toBe(CATALOG_TOPICS.length * 2);
  });
});
