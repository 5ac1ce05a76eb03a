import 'reflect-metadata';
import { createOperatorByCommand, issuedOperatorJson } from '@mp/access-infrastructure';
import { GATEWAY_MIGRATIONS, readOperatorCredentialLifetime } from '@mp/gateway-api';
import { ConfigError, ConfigReader, parseCommandLine } from '@mp/shared-util-config';
import { DataSource } from 'typeorm';

/**
 * Bootstrap command: creates an operator credential for the back-office API and prints its
 * bearer token once. Operators then create merchants and agents through the API.
 *
 *   npm run operator:create -- --name "Alice" [--json]
 *
 * The token expires after OPERATOR_CREDENTIAL_LIFETIME_DAYS (default 90). The issuance is in
 * the back-office audit trail like any other, its actor the command itself (no credential).
 */
async function main(): Promise<void> {
  const { values } = parseCommandLine({ options: { name: { type: 'string' }, json: { type: 'boolean', default: false } } });
  const name = values.name;
  const reader = new ConfigReader(process.env);
  const databaseUrl = reader.url('GATEWAY_DATABASE_URL', { protocols: ['postgres:', 'postgresql:'] });
  const { operatorCredentialLifetimeDays } = readOperatorCredentialLifetime(reader);
  if (!name) reader.problem('--name is required');
  reader.assertValid();

  const dataSource = new DataSource({ type: 'postgres', url: databaseUrl, migrations: GATEWAY_MIGRATIONS, migrationsTransactionMode: 'each' });
  await dataSource.initialize();
  try {
    await dataSource.runMigrations();
    // The bootstrap operator: the first one, who issues the others (docs/operations/operators.md).
    const operator = await createOperatorByCommand(dataSource, name as string, {
      lifetimeDays: operatorCredentialLifetimeDays,
      command: { id: 'operator:create', name: 'npm run operator:create' },
    });
    if (values.json) console.log(issuedOperatorJson(operator));
    else
      console.log(
        `Operator ${operator.name} (${operator.operatorId}, credential ${operator.credentialId}; may issue operator credentials)\n  token: ${operator.token}\n  expires: ${operator.expiresAt?.toISOString()}\nUse it as "Authorization: Bearer <token>" on /backoffice/v1. It is never shown again.`,
      );
  } finally {
    await dataSource.destroy();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
});
