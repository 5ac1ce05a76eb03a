import { CALLBACKS_MIGRATIONS } from '@mp/callbacks-infrastructure';
import { CATALOG_TOPICS, ensureCatalogTopics as makeCatalogTopics } from '@mp/contracts-topics';
import { DISPUTES_MIGRATIONS } from '@mp/disputes-infrastructure';
import { GATEWAY_MIGRATIONS } from '@mp/gateway-api';
import { LEDGER_MIGRATIONS } from '@mp/ledger-infrastructure';
import { PAYMENTS_MIGRATIONS } from '@mp/payments-infrastructure';
import { KafkaMessageBroker } from '@mp/shared-messaging';
import type { ConfigReader, KafkaConnectionConfig } from '@mp/shared-util-config';
import { WITHDRAWALS_MIGRATIONS } from '@mp/withdrawals-infrastructure';
import { Client, escapeIdentifier } from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';

export const INIT_STEPS = ['databases', 'migrations', 'topics', 'kafka-access'] as const;
export type InitStep = (typeof INIT_STEPS)[number];

/**
 * Each service of the catalog (deploy/catalog/services.json) with its migrations; the catalog
 * spec checks that the two name the same services. The image carries built JavaScript only, not
 * the catalog file, hence the list here.
 */
export const SERVICE_MIGRATIONS: Record<string, Array<new () => MigrationInterface>> = {
  ledger: LEDGER_MIGRATIONS,
  disputes: DISPUTES_MIGRATIONS,
  payments: PAYMENTS_MIGRATIONS,
  withdrawals: WITHDRAWALS_MIGRATIONS,
  gateway: GATEWAY_MIGRATIONS,
  callbacks: CALLBACKS_MIGRATIONS,
};

/** A login role and its password, from a postgres:// URL. */
export interface DatabaseLogin {
  url: string;
  role: string;
  password: string;
}

/**
 * One service's database and its two roles: the service's own (runtime) role, which reads and
 * writes the tables, and the migration role, which owns the database, its schema and tables and
 * alone changes them. The service never holds the migration role's password.
 */
export interface ServiceDatabase extends DatabaseLogin {
  service: string;
  database: string;
  migration: DatabaseLogin;
}

export interface ProvisioningConfig {
  adminUrl: string | null;
  services: ServiceDatabase[];
}

const envPrefix = (service: string): string => service.toUpperCase();

/** A postgres:// URL's role, password and database, or a problem naming the variable. */
function readLogin(reader: ConfigReader, variable: string, passwordVariable: string): DatabaseLogin & { database: string } {
  const url = reader.url(variable, { protocols: ['postgres:', 'postgresql:'] });
  const parsed = url ? new URL(url) : null;
  const database = decodeURIComponent(parsed?.pathname.slice(1) ?? '');
  if (parsed && (!parsed.username || !database)) reader.problem(`${variable} must name a user and a database (postgres://user:password@host:5432/database)`);
  // A role without a password cannot log in over the network (scram-sha-256): refused here, before any service waits on it.
  // Under compose an empty one means the password variable is missing from .env.
  if (parsed && !parsed.password) reader.problem(`${variable} has no password (with docker compose: set ${passwordVariable} in .env, see .env.example)`);
  return { url, role: decodeURIComponent(parsed?.username ?? ''), password: decodeURIComponent(parsed?.password ?? ''), database };
}

/**
 * Every service's <NAME>_DATABASE_URL and <NAME>_MIGRATION_DATABASE_URL (and POSTGRES_ADMIN_URL
 * when databases are made), validated together.
 */
export function readProvisioningConfig(reader: ConfigReader, { needsAdmin }: { needsAdmin: boolean }): ProvisioningConfig {
  const adminUrl = needsAdmin ? reader.url('POSTGRES_ADMIN_URL', { protocols: ['postgres:', 'postgresql:'] }) : null;
  const services = Object.keys(SERVICE_MIGRATIONS).map((service): ServiceDatabase => {
    const name = envPrefix(service);
    const { database, ...runtime } = readLogin(reader, `${name}_DATABASE_URL`, `${name}_DB_PASSWORD`);
    const { database: migrationDatabase, ...migration } = readLogin(reader, `${name}_MIGRATION_DATABASE_URL`, `${name}_MIGRATION_DB_PASSWORD`);
    if (database && migrationDatabase && migrationDatabase !== database)
      reader.problem(`${name}_MIGRATION_DATABASE_URL must name the database of ${name}_DATABASE_URL (${database}), not ${migrationDatabase}`);
    // The whole point of the second role: the service's own credentials must not be able to change its schema.
    if (runtime.role && runtime.role === migration.role)
      reader.problem(
        `${name}_MIGRATION_DATABASE_URL must name a role other than ${name}_DATABASE_URL's (${runtime.role}): the service's own role must not own its tables`,
      );
    return { service, ...runtime, database, migration };
  });
  return { adminUrl, services };
}

/** Creates the login role, or sets its password to the configured one (rerunning init rotates it). */
async function ensureLoginRole(admin: Client, { role, password }: Pick<DatabaseLogin, 'role' | 'password'>): Promise<boolean> {
  const exists = (await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
  // Utility statements take no bind parameters: the password is quoted as a literal.
  await admin.query(
    `${exists ? 'ALTER' : 'CREATE'} ROLE ${admin.escapeIdentifier(role)} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${admin.escapeLiteral(password)}`,
  );
  return !exists;
}

/**
 * Per service: its migration role and its runtime role (passwords as configured) and its
 * database, owned by the migration role, which only the runtime role (and the owner) may
 * connect to. A deployment from before the migration role, where the runtime role owned the
 * database and its tables, has them handed to the migration role.
 */
export async function ensureServiceDatabases(config: ProvisioningConfig): Promise<string> {
  const admin = new Client({ connectionString: config.adminUrl ?? undefined });
  await admin.connect();
  const made: string[] = [];
  try {
    const adminRole = (await admin.query<{ role: string }>('SELECT current_user AS role')).rows[0].role;
    // The admin is a superuser: a service running as it would see every database. Checked before anything changes.
    const asAdmin = config.services.find(({ role }) => role === adminRole);
    if (asAdmin)
      throw new Error(`${envPrefix(asAdmin.service)}_DATABASE_URL names ${adminRole}, the role of POSTGRES_ADMIN_URL: give the service a role of its own`);
    for (const { role, password, database, migration } of config.services) {
      // A migration role that is the admin's (a DBA who wants to own everything) keeps its password.
      if (migration.role !== adminRole && (await ensureLoginRole(admin, migration))) made.push(`role ${migration.role}`);
      if (await ensureLoginRole(admin, { role, password })) made.push(`role ${role}`);
      const quotedDatabase = admin.escapeIdentifier(database);
      const quotedOwner = admin.escapeIdentifier(migration.role);
      if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 0) {
        await admin.query(`CREATE DATABASE ${quotedDatabase} OWNER ${quotedOwner}`).catch((error: { code?: string }) => {
          // Another init creating the same database at the same moment is fine.
          if (error.code !== '42P04') throw error;
        });
        made.push(`database ${database}`);
      }
      await admin.query(`ALTER DATABASE ${quotedDatabase} OWNER TO ${quotedOwner}`);
      // No other role may even connect (nor make temporary tables): one service never reads another's tables.
      await admin.query(`REVOKE ALL ON DATABASE ${quotedDatabase} FROM PUBLIC`);
      await admin.query(`GRANT CONNECT ON DATABASE ${quotedDatabase} TO ${admin.escapeIdentifier(role)}`);
      if (await handOverOwnedObjects(config.adminUrl ?? '', database, role, migration.role))
        made.push(`handed ${role}'s objects in ${database} to ${migration.role}`);
    }
  } finally {
    await admin.end();
  }
  return made.length === 0 ? `${config.services.length} databases already in place` : `made ${made.join(', ')}`;
}

/** In `database`, everything `from` owns becomes `to`'s: the upgrade from one role per service to two. */
async function handOverOwnedObjects(adminUrl: string, database: string, from: string, to: string): Promise<boolean> {
  const url = new URL(adminUrl);
  url.pathname = `/${encodeURIComponent(database)}`;
  const admin = new Client({ connectionString: url.toString() });
  await admin.connect();
  try {
    const owned = await admin.query(
      "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relowner = (SELECT oid FROM pg_roles WHERE rolname = $1)",
      [from],
    );
    if (owned.rowCount === 0) return false;
    // Tables, sequences, functions, triggers' functions: ownership moves, the data stays.
    await admin.query(`REASSIGN OWNED BY ${admin.escapeIdentifier(from)} TO ${admin.escapeIdentifier(to)}`);
    return true;
  } finally {
    await admin.end();
  }
}

/**
 * What the runtime role may do in its database, granted by the migration role (the owner) so
 * that it also holds where the databases step does not run (CloudNativePG): connect, read and
 * write every table and use its sequences, now and in tables later migrations make; nothing
 * else. TRUNCATE is not granted: no service code empties a table. The migrations table is read
 * only: typeorm reads it when a service starts, and the service must not mark a migration as run.
 */
function runtimePrivilegeStatements(database: string, role: string, owner: string): string[] {
  const [db, runtime, migrator] = [escapeIdentifier(database), escapeIdentifier(role), escapeIdentifier(owner)];
  return [
    `REVOKE ALL ON DATABASE ${db} FROM PUBLIC`,
    `REVOKE CREATE, TEMPORARY ON DATABASE ${db} FROM ${runtime}`,
    `GRANT CONNECT ON DATABASE ${db} TO ${runtime}`,
    // PostgreSQL 15 no longer lets PUBLIC create in schema public; older servers (and a database restored from one) still do.
    'REVOKE CREATE ON SCHEMA public FROM PUBLIC',
    `REVOKE CREATE ON SCHEMA public FROM ${runtime}`,
    `GRANT USAGE ON SCHEMA public TO ${runtime}`,
    `GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO ${runtime}`,
    `REVOKE TRUNCATE, REFERENCES, TRIGGER ON ALL TABLES IN SCHEMA public FROM ${runtime}`,
    `REVOKE INSERT, UPDATE, DELETE ON TABLE migrations FROM ${runtime}`,
    `GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO ${runtime}`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ${migrator} IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO ${runtime}`,
    `ALTER DEFAULT PRIVILEGES FOR ROLE ${migrator} IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO ${runtime}`,
  ];
}

/**
 * Runs every service's pending migrations as its migration role, then grants the service's own
 * role what it needs and no more. Refuses, saying how to fix it, a database whose tables the
 * migration role does not own (a deployment from before it, where the databases step is not run).
 */
export async function runServiceMigrations(config: ProvisioningConfig): Promise<string> {
  const applied: string[] = [];
  for (const { service, role, database, migration } of config.services) {
    const dataSource = new DataSource({ type: 'postgres', url: migration.url, migrations: SERVICE_MIGRATIONS[service], migrationsTransactionMode: 'each' });
    await dataSource.initialize();
    try {
      const foreign = await dataSource.query<Array<{ relation: string; owner: string }>>(
        // Tables, sequences and views of the service's schema that its migration role cannot alter.
        "SELECT c.relname AS relation, pg_get_userbyid(c.relowner) AS owner FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'S', 'v', 'm') AND c.relowner <> (SELECT oid FROM pg_roles WHERE rolname = current_user) ORDER BY 1",
      );
      if (foreign.length > 0) {
        const owners = [...new Set(foreign.map(({ owner }) => owner))];
        throw new Error(
          `${service}: ${foreign.length} tables and sequences of ${database} (${foreign[0].relation}, ...) are owned by ${owners.join(', ')}, not by ${migration.role} (a deployment from before the migration role): ` +
            `run init's databases step, or as a superuser in ${database}: ${owners.map((owner) => `REASSIGN OWNED BY ${escapeIdentifier(owner)} TO ${escapeIdentifier(migration.role)};`).join(' ')}`,
        );
      }
      const migrations = await dataSource.runMigrations();
      if (migrations.length > 0) applied.push(`${service} ${migrations.length}`);
      await dataSource.transaction(async (manager) => {
        for (const statement of runtimePrivilegeStatements(database, role, migration.role)) await manager.query(statement);
      });
    } finally {
      await dataSource.destroy();
    }
  }
  return applied.length === 0 ? 'every service is up to date' : `applied ${applied.join(', ')}`;
}

/** The catalogue's topics (libs/contracts/topics) with their dead-letter topics; existing ones are left as they are. Gateway reply topics are per replica and made at its boot. */
export async function ensureCatalogTopics(kafka: KafkaConnectionConfig): Promise<string> {
  const broker = new KafkaMessageBroker({
    clientId: 'ops-init',
    brokers: kafka.kafkaBrokers,
    namespace: kafka.kafkaNamespace,
    security: kafka.kafkaSecurity,
    log: () => undefined,
  });
  const before = await broker.existingTopics([...CATALOG_TOPICS]);
  await makeCatalogTopics(broker, 'all', kafka.commandPartitions);
  const made = CATALOG_TOPICS.filter((topic) => !before.has(topic));
  return made.length === 0 ? `${CATALOG_TOPICS.length} topics already in place` : `made ${made.join(', ')} (${kafka.commandPartitions} partitions each)`;
}
