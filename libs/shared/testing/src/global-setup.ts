import { join } from 'node:path';

/**
 * Provides the real Kafka broker and PostgreSQL server to integration tests. When the test
 * runner (or an operator) already set KAFKA_BROKERS and TEST_PG_ADMIN_URL, those are used;
 * otherwise the project's own launcher starts a fresh pair, stopped in global teardown.
 */
export default async function globalSetup(): Promise<void> {
  if (process.env['KAFKA_BROKERS'] && process.env['TEST_PG_ADMIN_URL']) return;
  const state = globalThis as { __infra?: { stop: () => Promise<void> } };
  if (state.__infra) return;
  // A real dynamic import: the launcher is an ES module and must not be turned into require().
  const importModule = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<typeof import('./infra-launcher')>;
  const launcher = await importModule(join(__dirname, '../../../../deploy/local/infra.mjs'));
  const infra = await launcher.startInfra({ mode: 'test' });
  process.env['KAFKA_BROKERS'] = infra.kafka.brokers;
  process.env['TEST_PG_ADMIN_URL'] = infra.postgres.adminUrl;
  state.__infra = infra;
}
