import { CALLBACKS_MIGRATIONS } from '@mp/callbacks-infrastructure';
import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import { PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';
import { DISPUTES_MIGRATIONS } from '@mp/disputes-infrastructure';
import { GATEWAY_MIGRATIONS } from '@mp/gateway-api';
import { LEDGER_MIGRATIONS } from '@mp/ledger-infrastructure';
import { PAYMENTS_MIGRATIONS } from '@mp/payments-infrastructure';
import { KafkaMessageBroker } from '@mp/shared-messaging';
import type { ConfigReader, KafkaConnectionConfig } from '@mp/shared-util-config';
import { WITHDRAWALS_MIGRATIONS } from '@mp/withdrawals-infrastructure';
import { Client } from 'pg';
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

/** The command and event topics of the catalog; gateway reply topics are per replica and made at its boot. */
export const CATALOG_TOPICS = [PAYMENTS_TOPICS.commands, PAYMENTS_TOPICS.orderEvents, WITHDRAWALS_TOPICS.commands, WITHDRAWALS_TOPICS.events, DISPUTES_TOPICS.commands, DISPUTES_TOPICS.events];

export interface ServiceDatabase {
  service: string;
  url: string;
  role: string;
  password: string;
  database: string;
}

export interface ProvisioningConfig {
  adminUrl: string | null;
  services: ServiceDatabase[];
}

const envPrefix = (service: string): string => service.toUpperCase();

/** Every service's <NAME>_DATABASE_URL (and POSTGRES_ADMIN_URL when databases are made), validated together. */
export function readProvisioningConfig(reader: ConfigReader, { needsAdmin }: { needsAdmin: boolean }): ProvisioningConfig {
  const postgres = { protocols: ['postgres:', 'postgresql:'] };
  const adminUrl = needsAdmin ? reader.url('POSTGRES_ADMIN_URL', postgres) : null;
  const services = Object.keys(SERVICE_MIGRATIONS).map((service): ServiceDatabase => {
    const variable = `${envPrefix(service)}_DATABASE_URL`;
    const url = reader.url(variable, postgres);
    const parsed = url ? new URL(url) : null;
    const database = decodeURIComponent(parsed?.pathname.slice(1) ?? '');
    if (parsed && (!parsed.username || !database)) reader.problem(`${variable} must name a user and a database (postgres://user:password@host:5432/database)`);
    // A role without a password cannot log in over the network (scram-sha-256): refused here, before any service waits on it.
    // Under compose an empty one means <SERVICE>_DB_PASSWORD is missing from .env.
    if (parsed && !parsed.password) reader.problem(`${variable} has no password (with docker compose: set ${envPrefix(service)}_DB_PASSWORD in .env, see .env.example)`);
    return { service, url, role: decodeURIComponent(parsed?.username ?? ''), password: decodeURIComponent(parsed?.password ?? ''), database };
  });
  return { adminUrl, services };
}

/** Per service: its role (password as configured) and its database, owned by the role and closed to everyone else. */
export async function ensureServiceDatabases(config: ProvisioningConfig): Promise<string> {
  const admin = new Client({ connectionString: config.adminUrl ?? undefined });
  await admin.connect();
  const made: string[] = [];
  try {
    const adminRole = (await admin.query<{ role: string }>('SELECT current_user AS role')).rows[0].role;
    for (const { role, password, database } of config.services) {
      const quotedRole = admin.escapeIdentifier(role);
      // A deployment that runs every service as the admin role (a shared dev server) keeps it as is.
      if (role !== adminRole) {
        const exists = (await admin.query('SELECT 1 FROM pg_roles WHERE rolname = $1', [role])).rowCount === 1;
        // Utility statements take no bind parameters: the password is quoted as a literal.
        await admin.query(`${exists ? 'ALTER' : 'CREATE'} ROLE ${quotedRole} WITH LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE${password ? ` PASSWORD ${admin.escapeLiteral(password)}` : ''}`);
        if (!exists) made.push(`role ${role}`);
      }
      const quotedDatabase = admin.escapeIdentifier(database);
      if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [database])).rowCount === 0) {
        await admin.query(`CREATE DATABASE ${quotedDatabase} OWNER ${quotedRole}`).catch((error: { code?: string }) => {
          // Another init creating the same database at the same moment is fine.
          if (error.code !== '42P04') throw error;
        });
        made.push(`database ${database}`);
      }
      await admin.query(`ALTER DATABASE ${quotedDatabase} OWNER TO ${quotedRole}`);
      // No other role may even connect: one service never reads another's tables.
      await admin.query(`REVOKE ALL ON DATABASE ${quotedDatabase} FROM PUBLIC`);
    }
  } finally {
    await admin.end();
  }
  return made.length === 0 ? `${config.services.length} databases already in place` : `made ${made.join(', ')}`;
}

/** Runs every service's pending migrations as that service's role. */
export async function runServiceMigrations(config: ProvisioningConfig): Promise<string> {
  const applied: string[] = [];
  for (const { service, url } of config.services) {
    const dataSource = new DataSource({ type: 'postgres', url, migrations: SERVICE_MIGRATIONS[service], migrationsTransactionMode: 'each' });
    await dataSource.initialize();
    try {
      const migrations = await dataSource.runMigrations();
      if (migrations.length > 0) applied.push(`${service} ${migrations.length}`);
    } finally {
      await dataSource.destroy();
    }
  }
  return applied.length === 0 ? 'every service is up to date' : `applied ${applied.join(', ')}`;
}

/** The catalog's topics with their dead-letter topics; existing ones are left as they are. */
export async function ensureCatalogTopics(kafka: KafkaConnectionConfig): Promise<string> {
  const broker = new KafkaMessageBroker({ clientId: 'ops-init', brokers: kafka.kafkaBrokers, namespace: kafka.kafkaNamespace, security: kafka.kafkaSecurity, log: () => undefined });
  const before = await broker.existingTopics(CATALOG_TOPICS);
  await broker.ensureTopics(CATALOG_TOPICS.map((topic) => ({ topic, partitions: kafka.commandPartitions })));
  const made = CATALOG_TOPICS.filter((topic) => !before.has(topic));
  return made.length === 0 ? `${CATALOG_TOPICS.length} topics already in place` : `made ${made.join(', ')} (${kafka.commandPartitions} partitions each)`;
}
