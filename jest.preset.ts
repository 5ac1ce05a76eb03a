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
 * One jest project per Nx project. `*.spec.ts` are unit tests; `*.int.spec.ts` and
 * `*.e2e.spec.ts` need the real Kafka and Postgres, which the global setup provides.
 */
export function projectJestConfig(displayName: string, projectDir: string, options: { needsInfrastructure?: boolean } = {}): Config {
  return {
    displayName,
    rootDir: projectDir,
    testEnvironment: 'node',
    testMatch: ['<rootDir>/src/**/*.spec.ts'],
    // jose ships ECMAScript modules only (Node's require loads them; jest's runtime does not): compiled like our sources.
    transform: { '^.+\\.ts$': ['@swc/jest', { ...swcOptions, swcrc: false }], '/node_modules/jose/.+\\.js$': ['@swc/jest', { ...swcOptions, swcrc: false }] },
    transformIgnorePatterns: ['/node_modules/(?!jose/)'],
    moduleNameMapper,
    moduleFileExtensions: ['ts', 'js', 'json'],
    ...(options.needsInfrastructure
      ? {
          globalSetup: join(workspaceRoot, 'libs/shared/testing/src/global-setup.ts'),
          globalTeardown: join(workspaceRoot, 'libs/shared/testing/src/global-teardown.ts'),
          setupFilesAfterEnv: [join(workspaceRoot, 'libs/shared/testing/src/integration-timeouts.ts')],
        }
      : {}),
  };
}
