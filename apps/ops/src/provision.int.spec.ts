/**
 * Goal: `init` (compose's init service, the Kubernetes Jobs) provisions a deployment and can be
 * rerun. Per service two roles: a migration role that owns the database, its schema and tables
 * and runs the migrations, and the service's own (runtime) role, which may read and write its
 * tables but never change the schema, and cannot reach another service's database or tables. A
 * changed password in either URL is applied on the next run; a deployment from before the
 * migration role is taken over. The catalog's topics. Method: the provisioning functions against
 * the real PostgreSQL server and Kafka broker of the test run, with role and database names of
 * this test's own; each attack is a real statement as the runtime role, and its SQLSTATE is checked.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { deadLetterTopicOf, KafkaMessageBroker } from '@mp/shared-messaging';
import { ConfigError, ConfigReader, readKafkaConnectionConfig } from '@mp/shared-util-config';
import { Client } from 'pg';
import { DataSource } from 'typeorm';
import { CATALOG_TOPICS } from '@mp/contracts-topics';
import {
  ensureCatalogTopics,
  ensureServiceDatabases,
  readProvisioningConfig,
  runServiceMigrations,
  SERVICE_MIGRATIONS,
  type ProvisioningConfig,
} from './provision';

const adminUrl = process.env.TEST_PG_ADMIN_URL as string;
const prefix = `prov_${randomBytes(3).toString('hex')}`;
const password = (role: string, generation = 1) => `pw-${role}-${generation}-${prefix}`;
/** Role and database `<prefix>_<service>`, migration role `<prefix>_<service>_migrator`. */
const runtimeRole = (service: string) => `${prefix}_${service}`;
const migrationRole = (service: string) => `${prefix}_${service}_migrator`;

function roleUrl(role: string, database: string, generation = 1): string {
  const url = new URL(`postgres://${new URL(adminUrl).host}`);
  url.username = role;
  url.password = password(role, generation);
  url.pathname = `/${database}`;
  return url.toString();
}

/** The environment compose gives init, with this test's names. */
function environment(generation = 1): Record<string, string> {
  const urls = Object.keys(SERVICE_MIGRATIONS).flatMap((service) => [
    [`${service.toUpperCase()}_DATABASE_URL`, roleUrl(runtimeRole(service), `${prefix}_${service}`, generation)],
    [`${service.toUpperCase()}_MIGRATION_DATABASE_URL`, roleUrl(migrationRole(service), `${prefix}_${service}`, generation)],
  ]);
  return { POSTGRES_ADMIN_URL: adminUrl, ...Object.fromEntries(urls) };
}

function config(generation = 1, env = environment(generation)): ProvisioningConfig {
  const reader = new ConfigReader(env);
  const provisioning = readProvisioningConfig(reader, { needsAdmin: true });
  reader.assertValid();
  return provisioning;
}

const serviceUrl = (service: string, generation = 1) => roleUrl(runtimeRole(service), `${prefix}_${service}`, generation);
const migrationUrl = (service: string, generation = 1) => roleUrl(migrationRole(service), `${prefix}_${service}`, generation);
/** `service`'s runtime role and password, pointed at `otherService`'s database. */
const crossUrl = (service: string, otherService: string) => roleUrl(runtimeRole(service), `${prefix}_${otherService}`);

async function connected<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

async function canConnect(url: string): Promise<string> {
  try {
    return await connected(url, async (client) => {
      await client.query('SELECT 1');
      return 'connected';
    });
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

/** 'ok', or the SQLSTATE the server refused the statement with. */
async function outcome(client: Client, sql: string): Promise<string> {
  try {
    await client.query(sql);
    return 'ok';
  } catch (error) {
    return (error as { code?: string }).code ?? String(error);
  }
}

const asAdmin = <T>(use: (client: Client) => Promise<T>, database?: string) => {
  const url = new URL(adminUrl);
  if (database) url.pathname = `/${database}`;
  return connected(url.toString(), use);
};

async function dropDatabaseAndRoles(database: string, roles: string[]): Promise<void> {
  await asAdmin(async (admin) => {
    await admin.query(`DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
    // Default privileges and grants are dependencies of the roles in the cluster's catalogs.
    for (const role of roles) await admin.query(`DROP ROLE IF EXISTS "${role}"`);
  });
}

// 42501: insufficient privilege; 28P01: invalid password.
const INSUFFICIENT_PRIVILEGE = '42501';

// Each case provisions six databases and their roles against the real server: far beyond jest's 5 s on a busy machine.
jest.setTimeout(60_000);

describe('init: databases, migrations and topics', () => {
  afterAll(async () => {
    for (const service of Object.keys(SERVICE_MIGRATIONS)) await dropDatabaseAndRoles(`${prefix}_${service}`, [runtimeRole(service), migrationRole(service)]);
  });

  it('names the same services as the service catalog', () => {
    const catalog = JSON.parse(readFileSync(join(__dirname, '../../../deploy/catalog/services.json'), 'utf8')) as {
      services: Array<{ name: string }>;
      topics: Array<{ name: string }>;
    };
    expect(Object.keys(SERVICE_MIGRATIONS).sort()).toEqual(catalog.services.map(({ name }) => name).sort());
    expect([...CATALOG_TOPICS].sort()).toEqual(
      catalog.topics
        .map(({ name }) => name)
        .filter((name) => !name.includes('<'))
        .sort(),
    );
  });

  it('makes a migration role, a runtime role and a database per service, each closed to the other services, and a rerun changes nothing', async () => {
    expect(await ensureServiceDatabases(config())).toMatch(
      new RegExp(`^made role ${migrationRole('ledger')}, role ${runtimeRole('ledger')}, database ${prefix}_ledger, `),
    );
    expect(await ensureServiceDatabases(config())).toBe('6 databases already in place');
    expect(await canConnect(serviceUrl('payments'))).toBe('connected');
    expect(await canConnect(migrationUrl('payments'))).toBe('connected');
    expect(await canConnect(serviceUrl('ledger'))).toBe('connected');
    // CONNECT is revoked from PUBLIC: payments' role cannot open the ledger's database, nor its migration role.
    expect(await canConnect(crossUrl('payments', 'ledger'))).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await canConnect(crossUrl('gateway', 'payments'))).toBe(INSUFFICIENT_PRIVILEGE);
    expect(await canConnect(roleUrl(migrationRole('payments'), `${prefix}_ledger`))).toBe(INSUFFICIENT_PRIVILEGE);
    const owner = await asAdmin(
      async (admin) =>
        (await admin.query<{ owner: string }>('SELECT pg_get_userbyid(datdba) AS owner FROM pg_database WHERE datname = $1', [`${prefix}_ledger`])).rows[0]
          .owner,
    );
    expect(owner).toBe(migrationRole('ledger'));
  });

  it('applies changed passwords of both roles on the next run', async () => {
    await ensureServiceDatabases(config());
    await ensureServiceDatabases(config(2));
    expect(await canConnect(serviceUrl('callbacks', 2))).toBe('connected');
    expect(await canConnect(migrationUrl('callbacks', 2))).toBe('connected');
    expect(await canConnect(serviceUrl('callbacks', 1))).toBe('28P01');
    expect(await canConnect(migrationUrl('callbacks', 1))).toBe('28P01');
    await ensureServiceDatabases(config());
  });

  it("runs every service's migrations as its migration role, once, which owns every table", async () => {
    await ensureServiceDatabases(config());
    expect(await runServiceMigrations(config())).toMatch(/^applied ledger \d+, disputes \d+, payments \d+, withdrawals \d+, gateway \d+, callbacks \d+$/);
    expect(await runServiceMigrations(config())).toBe('every service is up to date');
    const owners = await connected(serviceUrl('ledger'), (ledger) =>
      ledger.query<{ owner: string }>("SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'"),
    );
    expect(owners.rows.map(({ owner }) => owner)).toEqual([migrationRole('ledger')]);
  });

  describe('the runtime role, after init', () => {
    beforeAll(async () => {
      await ensureServiceDatabases(config());
      await runServiceMigrations(config());
    });

    it('cannot create, alter, drop or empty a table in its own database, nor make a temporary one', async () => {
      const attempts = await connected(serviceUrl('payments'), async (payments) => ({
        create: await outcome(payments, 'CREATE TABLE intruder (id int)'),
        createInOwnSchema: await outcome(payments, 'CREATE SCHEMA intruder'),
        temporary: await outcome(payments, 'CREATE TEMPORARY TABLE intruder (id int)'),
        alter: await outcome(payments, 'ALTER TABLE payment_orders ADD COLUMN intruder int'),
        dropTrigger: await outcome(payments, 'DROP TRIGGER event_store_append_only ON event_store'),
        drop: await outcome(payments, 'DROP TABLE outbox'),
        truncate: await outcome(payments, 'TRUNCATE inbox'),
        markMigrationRun: await outcome(payments, "INSERT INTO migrations (timestamp, name) VALUES (1, 'Forged1')"),
        extension: await outcome(payments, 'CREATE EXTENSION IF NOT EXISTS pgcrypto'),
      }));
      expect(attempts).toEqual({
        create: INSUFFICIENT_PRIVILEGE,
        createInOwnSchema: INSUFFICIENT_PRIVILEGE,
        temporary: INSUFFICIENT_PRIVILEGE,
        alter: INSUFFICIENT_PRIVILEGE,
        dropTrigger: INSUFFICIENT_PRIVILEGE,
        drop: INSUFFICIENT_PRIVILEGE,
        truncate: INSUFFICIENT_PRIVILEGE,
        markMigrationRun: INSUFFICIENT_PRIVILEGE,
        extension: INSUFFICIENT_PRIVILEGE,
      });
    });

    it("reads and writes its tables, their sequences included, and boots with the service's migrations (nothing pending)", async () => {
      await connected(serviceUrl('payments'), async (payments) => {
        const messageId = randomUUID();
        const inserted = await payments.query<{ position: string }>(
          "INSERT INTO outbox (message_id, topic, message_key, envelope) VALUES ($1, 't', 'k', '{}') RETURNING position",
          [messageId],
        );
        expect(Number(inserted.rows[0].position)).toBeGreaterThan(0);
        expect((await payments.query('UPDATE outbox SET published_at = now() WHERE message_id = $1', [messageId])).rowCount).toBe(1);
        expect((await payments.query('SELECT 1 FROM outbox WHERE message_id = $1', [messageId])).rowCount).toBe(1);
        expect((await payments.query('DELETE FROM outbox WHERE message_id = $1', [messageId])).rowCount).toBe(1);
        // The outbox relay's wake-up: LISTEN and NOTIFY need no privilege of their own.
        expect(await outcome(payments, 'LISTEN outbox_enqueued')).toBe('ok');
      });
      // A service at boot runs its migrations (migrationsRun): with none pending it only reads the migrations table.
      const service = new DataSource({
        type: 'postgres',
        url: serviceUrl('payments'),
        migrations: SERVICE_MIGRATIONS.payments,
        migrationsTransactionMode: 'each',
      });
      await service.initialize();
      try {
        expect(await service.runMigrations()).toEqual([]);
      } finally {
        await service.destroy();
      }
    });

    it('reads and writes a table a later migration makes', async () => {
      await connected(migrationUrl('ledger'), (migrator) =>
        migrator.query('CREATE TABLE later_migration_table (id BIGSERIAL PRIMARY KEY, note TEXT NOT NULL)'),
      );
      const rows = await connected(serviceUrl('ledger'), async (ledger) => {
        await ledger.query("INSERT INTO later_migration_table (note) VALUES ('written by the service')");
        await ledger.query("UPDATE later_migration_table SET note = 'updated by the service'");
        return (await ledger.query<{ note: string }>('SELECT note FROM later_migration_table')).rows;
      });
      expect(rows).toEqual([{ note: 'updated by the service' }]);
      expect(await connected(serviceUrl('ledger'), (ledger) => outcome(ledger, 'DROP TABLE later_migration_table'))).toBe(INSUFFICIENT_PRIVILEGE);
    });

    it("cannot query another service's database: no connection, no table even with one, no dblink or foreign server", async () => {
      expect(await canConnect(crossUrl('payments', 'ledger'))).toBe(INSUFFICIENT_PRIVILEGE);
      // A misconfiguration that lets payments' role connect still shows it none of the ledger's tables.
      await asAdmin((admin) => admin.query(`GRANT CONNECT ON DATABASE "${prefix}_ledger" TO "${runtimeRole('payments')}"`));
      try {
        const reads = await connected(crossUrl('payments', 'ledger'), async (intruder) => ({
          postings: await outcome(intruder, 'SELECT * FROM ledger_postings LIMIT 1'),
          balances: await outcome(intruder, "UPDATE ledger_balances SET settlement_available = settlement_available + 1 WHERE merchant_id = 'x'"),
        }));
        expect(reads).toEqual({ postings: INSUFFICIENT_PRIVILEGE, balances: INSUFFICIENT_PRIVILEGE });
      } finally {
        await asAdmin((admin) => admin.query(`REVOKE CONNECT ON DATABASE "${prefix}_ledger" FROM "${runtimeRole('payments')}"`));
      }
      // A query across databases needs dblink or postgres_fdw installed in its own database: refused.
      const extensions = await connected(serviceUrl('payments'), async (payments) => ({
        dblink: await outcome(payments, 'CREATE EXTENSION dblink'),
        postgresFdw: await outcome(payments, 'CREATE EXTENSION postgres_fdw'),
      }));
      expect(extensions).toEqual({ dblink: INSUFFICIENT_PRIVILEGE, postgresFdw: INSUFFICIENT_PRIVILEGE });
    });
  });

  it('takes over a deployment from before the migration role: the migrations step names the fix, the databases step makes it', async () => {
    const old = `${prefix}_legacy`;
    const oldMigrator = `${old}_migrator`;
    try {
      // Before: the service's role owned its database and ran the migrations itself.
      await asAdmin(async (admin) => {
        await admin.query(`CREATE ROLE "${old}" LOGIN PASSWORD '${password(old)}'`);
        await admin.query(`CREATE DATABASE "${old}" OWNER "${old}"`);
      });
      const legacy = new DataSource({ type: 'postgres', url: roleUrl(old, old), migrations: SERVICE_MIGRATIONS.payments, migrationsTransactionMode: 'each' });
      await legacy.initialize();
      await legacy.runMigrations();
      await legacy.destroy();

      const env = {
        POSTGRES_ADMIN_URL: adminUrl,
        ...Object.fromEntries(
          Object.keys(SERVICE_MIGRATIONS).flatMap((service) => [
            [`${service.toUpperCase()}_DATABASE_URL`, roleUrl(old, old)],
            [`${service.toUpperCase()}_MIGRATION_DATABASE_URL`, roleUrl(oldMigrator, old)],
          ]),
        ),
      };
      const provisioning = config(1, env);
      const onlyPayments: ProvisioningConfig = { ...provisioning, services: provisioning.services.filter(({ service }) => service === 'payments') };
      // Where the databases step does not run (CloudNativePG), the migration role cannot take the tables: init says how.
      await asAdmin((admin) =>
        admin.query(`CREATE ROLE "${oldMigrator}" LOGIN PASSWORD '${password(oldMigrator)}'; GRANT CONNECT ON DATABASE "${old}" TO "${oldMigrator}"`),
      );
      await expect(runServiceMigrations(onlyPayments)).rejects.toThrow(
        new RegExp(`owned by ${old}, not by ${oldMigrator}.*REASSIGN OWNED BY "${old}" TO "${oldMigrator}"`),
      );

      expect(await ensureServiceDatabases(onlyPayments)).toMatch(new RegExp(`handed ${old}'s objects in ${old} to ${oldMigrator}`));
      expect(await runServiceMigrations(onlyPayments)).toBe('every service is up to date');
      const after = await connected(roleUrl(old, old), async (service) => ({
        owners: (await service.query<{ owner: string }>("SELECT DISTINCT tableowner AS owner FROM pg_tables WHERE schemaname = 'public'")).rows.map(
          ({ owner }) => owner,
        ),
        drop: await outcome(service, 'DROP TABLE outbox'),
        read: await outcome(service, 'SELECT count(*) FROM payment_orders'),
      }));
      expect(after).toEqual({ owners: [oldMigrator], drop: INSUFFICIENT_PRIVILEGE, read: 'ok' });
    } finally {
      await dropDatabaseAndRoles(old, [oldMigrator, old]);
    }
  });

  it("refuses, before changing anything, a service whose role is the admin's (a superuser sees every database)", async () => {
    const adminRole = decodeURIComponent(new URL(adminUrl).username);
    const env = {
      ...environment(),
      LEDGER_DATABASE_URL: roleUrl(adminRole, `${prefix}_asadmin`),
      LEDGER_MIGRATION_DATABASE_URL: roleUrl(`${prefix}_asadmin_migrator`, `${prefix}_asadmin`),
    };
    await expect(ensureServiceDatabases(config(1, env))).rejects.toThrow(
      `LEDGER_DATABASE_URL names ${adminRole}, the role of POSTGRES_ADMIN_URL: give the service a role of its own`,
    );
    const made = await asAdmin((admin) => admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [`${prefix}_asadmin_migrator`]));
    expect(made.rowCount).toBe(0);
  });

  it('refuses service URLs without a user or a database, a missing migration URL, one for another database or the same role, naming the variable', () => {
    const problems = (overrides: Record<string, string>) => {
      const reader = new ConfigReader({ ...environment(), ...overrides });
      readProvisioningConfig(reader, { needsAdmin: true });
      try {
        reader.assertValid();
        return 'valid';
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
    };
    expect(problems({ PAYMENTS_DATABASE_URL: 'postgres://postgres:5432' })).toMatch(/PAYMENTS_DATABASE_URL must name a user and a database/);
    expect(problems({ LEDGER_MIGRATION_DATABASE_URL: '' })).toMatch(/LEDGER_MIGRATION_DATABASE_URL/);
    expect(problems({ LEDGER_MIGRATION_DATABASE_URL: roleUrl(migrationRole('ledger'), `${prefix}_ledger`).replace(/:[^:@/]+@/, '@') })).toMatch(
      /LEDGER_MIGRATION_DATABASE_URL has no password \(with docker compose: set LEDGER_MIGRATION_DB_PASSWORD/,
    );
    expect(problems({ LEDGER_MIGRATION_DATABASE_URL: roleUrl(migrationRole('ledger'), `${prefix}_payments`) })).toMatch(
      /LEDGER_MIGRATION_DATABASE_URL must name the database of LEDGER_DATABASE_URL/,
    );
    expect(problems({ LEDGER_MIGRATION_DATABASE_URL: serviceUrl('ledger') })).toMatch(
      /LEDGER_MIGRATION_DATABASE_URL must name a role other than LEDGER_DATABASE_URL's/,
    );
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
