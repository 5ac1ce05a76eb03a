import type { Config } from 'jest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const workspaceRoot = __dirname;
const swcOptions = JSON.parse(readFileSync(join(workspaceRoot, '.swcrc'), 'utf8'));
const tsconfig = JSON.parse(readFileSync(join(workspaceRoot, 'tsconfig.base.json'), 'utf8'));
const paths: Record<string, string[]> = tsconfig.compilerOptions.paths;

/** The workspace's path aliases (`@mp/...`) for jest, derived from tsconfig.base.json. */
const moduleNameMapper = Object.fromEntries(
  Object.entries(paths).map(([alias, [target]]) => [`^${alias.replace(/[/\\^$+?.()|[\]{}]/g, '\\$&')}$`, join(workspaceRoot, target)]),
);

/**
 * The tier a run selects (tools/test.mjs sets MP_TEST_TIER; docs/testing.md), by file suffix:
 * `unit` the plain `*.spec.ts` (no build, no Kafka, no PostgreSQL), `int` the `*.int.spec.ts`
 * (real Kafka and PostgreSQL, no build), `e2e` the `*.e2e.spec.ts` (services run from dist/).
 * Unset (jest run directly, `npm test -- <files>`): every tier.
 */
const TIERS = { unit: '.spec.ts', int: '.int.spec.ts', e2e: '.e2e.spec.ts' } as const;
type Tier = keyof typeof TIERS;
const tier = process.env['MP_TEST_TIER'] as Tier | undefined;
if (tier !== undefined && !(tier in TIERS)) throw new Error(`MP_TEST_TIER=${tier}: expected one of ${Object.keys(TIERS).join(', ')}`);

/**
 * One jest project per Nx project. `*.spec.ts` are unit tests; `*.int.spec.ts` and
 * `*.e2e.spec.ts` need the real Kafka and Postgres, which the global setup provides (projects
 * that have such files say `needsInfrastructure`). `specs` are where the project's spec files
 * are, without the suffix (default: anywhere under src/).
 */
export function projectJestConfig(displayName: string, projectDir: string, options: { needsInfrastructure?: boolean; specs?: string[] } = {}): Config {
  const specs = options.specs ?? ['<rootDir>/src/**/*'];
  return {
    displayName,
    rootDir: projectDir,
    testEnvironment: 'node',
    testMatch: specs.map((spec) => `${spec}${TIERS[tier ?? 'unit']}`),
    // The unit tier's suffix matches the others' too.
    ...(tier === 'unit' ? { testPathIgnorePatterns: ['/node_modules/', '\\.(int|e2e)\\.spec\\.ts$'] } : {}),
    // jose ships ECMAScript modules only (Node's require loads them; jest's runtime does not): compiled like our sources.
    transform: { '^.+\\.ts$': ['@swc/jest', { ...swcOptions, swcrc: false }], '/node_modules/jose/.+\\.js$': ['@swc/jest', { ...swcOptions, swcrc: false }] },
    transformIgnorePatterns: ['/node_modules/(?!jose/)'],
    moduleNameMapper,
    moduleFileExtensions: ['ts', 'js', 'json'],
    ...(options.needsInfrastructure && tier !== 'unit'
      ? {
          globalSetup: join(workspaceRoot, 'libs/shared/testing/src/global-setup.ts'),
          globalTeardown: join(workspaceRoot, 'libs/shared/testing/src/global-teardown.ts'),
          setupFilesAfterEnv: [join(workspaceRoot, 'libs/shared/testing/src/integration-timeouts.ts')],
        }
      : {}),
  };
}
