import { join } from 'node:path';

/**
 * Builds the services when a tier needs them (ensureBuilt) and provides the real Kafka broker and PostgreSQL server to integration tests. When the test
 * runner (or an operator) already set KAFKA_BROKERS and TEST_PG_ADMIN_URL, those are used;
 * otherwise the project's own launcher starts a fresh pair, stopped in global teardown.
 */
export default async function globalSetup(): Promise<void> {
  await ensureBuilt();
  if (process.env['KAFKA_BROKERS'] && process.env['TEST_PG_ADMIN_URL']) return;
  const state = globalThis as { __infra?: { stop: () => Promise<void> } };
  if (state.__infra) return;
  const launcher = await importModule<typeof import('./infra-launcher')>('deploy/local/infra.mjs');
  const infra = await launcher.startInfra({ mode: 'test' });
  process.env['KAFKA_BROKERS'] = infra.kafka.brokers;
  process.env['TEST_PG_ADMIN_URL'] = infra.postgres.adminUrl;
  state.__infra = infra;
}

/** A real dynamic import of one of the workspace's ES modules: it must not be turned into require(). */
function importModule<T>(workspacePath: string): Promise<T> {
  const load = new Function('specifier', 'return import(specifier)') as (specifier: string) => Promise<T>;
  return load(join(__dirname, '../../../..', workspacePath));
}

/**
 * End-to-end tests run the services and tools from dist/. The test command builds once before
 * jest and says so in MP_BUILT; jest run directly builds here (a no-op when nothing changed).
 * The integration tier (MP_TEST_TIER=int) runs no built code: it does not build.
 */
async function ensureBuilt(): Promise<void> {
  if (process.env['MP_BUILT'] === '1' || process.env['MP_TEST_TIER'] === 'int') return;
  const { build } = await importModule<{ build: (options: { logFile: string }) => Promise<unknown> }>('tools/build-workspace.mjs');
  await build({ logFile: join(__dirname, '../../../../.local/build.log') });
  process.env['MP_BUILT'] = '1';
}
