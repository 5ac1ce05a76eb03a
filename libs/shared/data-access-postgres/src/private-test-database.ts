import { Client } from 'pg';
import { DataSource, type MigrationInterface } from 'typeorm';

/**
 * For integration specs of infrastructure libraries (which may not depend on the testing
 * library): a database of their own on the shared test server (TEST_PG_ADMIN_URL), migrated,
 * so specs running at the same time never see each other's rows. The caller destroys it.
 */
export async function migratedPrivateDatabase(namePrefix: string, migrations: Array<new () => MigrationInterface>): Promise<DataSource> {
  const adminUrl = process.env['TEST_PG_ADMIN_URL'];
  if (!adminUrl) throw new Error('TEST_PG_ADMIN_URL is not set: integration specs need the test PostgreSQL server');
  const name = `${namePrefix}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dataSource = new DataSource({ type: 'postgres', url: url.toString(), migrations, extra: { max: 4 } });
  await dataSource.initialize();
  await dataSource.runMigrations();
  return dataSource;
}

/**
 * For specs and benchmarks that count round trips: every statement `dataSource` sends from now
 * on (whitespace folded) is pushed onto the returned array, which the caller may empty at will.
 */
export function recordStatements(dataSource: DataSource): string[] {
  const statements: string[] = [];
  const logger = dataSource.logger;
  const logQuery = logger.logQuery.bind(logger);
  logger.logQuery = (query, parameters, queryRunner) => {
    statements.push(query.replace(/\s+/g, ' ').trim());
    return logQuery(query, parameters, queryRunner);
  };
  return statements;
}
