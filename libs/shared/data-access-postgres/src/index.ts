import type { TypeOrmModuleOptions } from '@nestjs/typeorm';
import type { MigrationInterface } from 'typeorm';
import { DEFAULT_PREPARED_STATEMENTS_MAX, PreparedStatementNames, preparingClientClass } from './prepared-statements';

export interface ServiceDatabaseSettings {
  url: string;
  poolMax: number;
  /** Statement texts kept prepared (`<SERVICE>_DATABASE_PREPARED_STATEMENTS_MAX`); 0 runs every statement unnamed. */
  preparedStatementsMax?: number;
  migrations: Array<new () => MigrationInterface>;
}

/**
 * How every service connects to its own database: migrations run at boot, one transaction
 * each; no schema synchronisation; explicit pool size and connect timeout; retries while the
 * server is still starting.
 */
export function serviceDatabaseOptions(settings: ServiceDatabaseSettings): TypeOrmModuleOptions {
  return {
    type: 'postgres',
    url: settings.url,
    migrations: settings.migrations,
    migrationsRun: true,
    migrationsTransactionMode: 'each',
    synchronize: false,
    extra: {
      // Statements that repeat run as named prepared statements, parsed and planned once per connection (prepared-statements.ts).
      Client: preparingClientClass(new PreparedStatementNames(settings.preparedStatementsMax ?? DEFAULT_PREPARED_STATEMENTS_MAX)),
      max: settings.poolMax,
      connectionTimeoutMillis: 5_000,
      // A transaction left idle (a process stuck between statements) is ended by the server
      // after two minutes, so no write can commit long after the facts it was decided on: the
      // ledger's orphan-hold sweep relies on a create's transaction being short-lived.
      idle_in_transaction_session_timeout: 120_000,
    },
    retryAttempts: 10,
    retryDelay: 1_000,
  };
}
export { migratedPrivateDatabase } from './private-test-database';
export { DEFAULT_PREPARED_STATEMENTS_MAX, PreparedStatementNames, preparingClientClass, readPreparedStatementsMax } from './prepared-statements';
export {
  addListPosition,
  fetchNewestFirstPage,
  PositionCursor,
  SqlConditions,
  type NewestFirstPage,
  type NewestFirstQuery,
  type SqlRunner,
  DEFAULT_PAGE_LIMIT,
  pageFilterOf,
  type PageQueryFields,
} from './newest-first-page';
export { recordStatements } from './private-test-database';
export { metadataColumnMigration } from './metadata-column';
