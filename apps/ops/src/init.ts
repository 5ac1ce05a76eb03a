/**
 * One-shot provisioning of a deployment (the compose `init` service, the Kubernetes Jobs):
 *
 *   node dist/apps/ops/src/init.js [--steps databases,migrations,topics,kafka-access]
 *
 * - databases: per service, two login roles and a database, created through POSTGRES_ADMIN_URL:
 *   the migration role of <NAME>_MIGRATION_DATABASE_URL owns the database; the service's own
 *   role of <NAME>_DATABASE_URL may only connect to it. Both passwords are set to the URLs' every
 *   time, so changing one in the configuration and rerunning the step rotates it. Where an
 *   operator (CloudNativePG) owns roles and databases, this step is not run.
 * - migrations: every service's migrations, as its migration role (so it owns the tables), one
 *   transaction each; then the service's role gets read and write on the tables and nothing
 *   else, no DDL. Services also check for migrations at boot, as their own role, which can run
 *   none: this step must run before a release's services start.
 * - topics: the command and event topics of the service catalog (deploy/catalog/services.json),
 *   with KAFKA_TOPIC_PARTITIONS partitions and their dead-letter topics. Gateway reply topics are
 *   per replica and made by each gateway at boot.
 * - kafka-access: on a secured broker (KAFKA_SECURITY_PROTOCOL=SASL_SSL, run as the admin
 *   principal), each service principal's ACLs, exactly those of apps/ops/src/kafka-access.ts:
 *   missing ones are added and ones no longer granted are removed. The principals' SCRAM
 *   credentials are the broker's to make (deploy/kafka/README.md). Skipped on a PLAINTEXT broker.
 *
 * Every step is idempotent: rerunning it changes nothing that is already in place. Exit code 0
 * when every step succeeded, 1 when one failed, 2 for a configuration error.
 */
import 'reflect-metadata';
import { ConfigError, ConfigReader, parseCommandLine, readKafkaConnectionConfig, type KafkaConnectionConfig } from '@mp/shared-util-config';
import { grantServiceKafkaAccess } from './kafka-access';
import { ensureServiceDatabases, INIT_STEPS, readProvisioningConfig, runServiceMigrations, ensureCatalogTopics, type InitStep } from './provision';

const USAGE = `usage: init [--steps ${INIT_STEPS.join(',')}]`;

async function main(): Promise<number> {
  const { values } = parseCommandLine({ options: { steps: { type: 'string', default: INIT_STEPS.join(',') } } });
  const steps = values.steps.split(',').map((step) => step.trim());
  const reader = new ConfigReader(process.env);
  for (const step of steps.filter((candidate) => !(INIT_STEPS as readonly string[]).includes(candidate)))
    reader.problem(`--steps: unknown step "${step}" (${USAGE})`);
  const wanted = new Set(steps as InitStep[]);
  // Each step reads only its own settings: a topics-only Job has no database URLs.
  const config =
    wanted.has('databases') || wanted.has('migrations')
      ? readProvisioningConfig(reader, { needsAdmin: wanted.has('databases') })
      : { adminUrl: null, services: [] };
  const kafka = wanted.has('topics') || wanted.has('kafka-access') ? readKafkaConnectionConfig(reader) : null;
  reader.assertValid();

  const run: Record<InitStep, () => Promise<string>> = {
    databases: () => ensureServiceDatabases(config),
    migrations: () => runServiceMigrations(config),
    topics: () => ensureCatalogTopics(kafka as KafkaConnectionConfig),
    'kafka-access': () => grantServiceKafkaAccess(kafka as KafkaConnectionConfig),
  };
  for (const step of INIT_STEPS.filter((candidate) => wanted.has(candidate))) {
    const startedAt = Date.now();
    const done = await run[step]();
    console.log(`[init] ${step}: ${done} (${Date.now() - startedAt} ms)`);
  }
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof ConfigError ? error.message : `[init] failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    process.exit(error instanceof ConfigError ? 2 : 1);
  },
);
