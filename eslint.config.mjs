import nx from '@nx/eslint-plugin';

/**
 * Module boundaries, checked on every lint run. Two tag dimensions:
 * - scope: a bounded context (gateway, access, payments, ...) reaches another context only
 *   through `scope:contracts`, and everyone may use `scope:shared`;
 * - type: apps are thin wiring over features and infrastructure; domain code is pure (no
 *   Nest, TypeORM, Kafka or pg); contracts depend on utilities only.
 */
const frameworkPackages = ['@nestjs/*', 'typeorm', 'kafkajs', 'pg', '@nestjs/typeorm'];

/**
 * Test code lives in its own projects (tag type:testing: libs/shared/testing, libs/<context>/testing):
 * production code may not import it, so it never reaches a build a service runs. Only spec files
 * may (testFileConstraints below).
 */
/**
 * The merchant SDK's request signer (libs/sdk/src/signing.ts, imported as @mp/merchant-sdk/signing)
 * is the platform's one signing rule (docs/decisions/one-request-signer.md): the gateway's verifier
 * (access), the test clients (shared testing) and the benchmark use it, so those scopes may depend on
 * scope:sdk, which itself depends on nothing.
 */
const depConstraints = [
  { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: ['scope:shared', 'scope:sdk'] },
  { sourceTag: 'scope:contracts', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:shared'] },
  { sourceTag: 'scope:access', onlyDependOnLibsWithTags: ['scope:access', 'scope:contracts', 'scope:shared', 'scope:sdk'] },
  { sourceTag: 'scope:payments', onlyDependOnLibsWithTags: ['scope:payments', 'scope:ledger-client', 'scope:contracts', 'scope:shared'] },
  { sourceTag: 'scope:disputes', onlyDependOnLibsWithTags: ['scope:disputes', 'scope:contracts', 'scope:shared'] },
  { sourceTag: 'scope:withdrawals', onlyDependOnLibsWithTags: ['scope:withdrawals', 'scope:ledger-client', 'scope:contracts', 'scope:shared'] },
  { sourceTag: 'scope:ledger', onlyDependOnLibsWithTags: ['scope:ledger', 'scope:contracts', 'scope:shared'] },
  // The ledger's HTTP client (libs/ledger/client), for the services that place holds: a caller's implementation, so not a contract.
  { sourceTag: 'scope:ledger-client', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:shared'] },
  { sourceTag: 'scope:gateway', onlyDependOnLibsWithTags: ['scope:gateway', 'scope:access', 'scope:contracts', 'scope:shared'] },
  { sourceTag: 'scope:callbacks', onlyDependOnLibsWithTags: ['scope:callbacks', 'scope:contracts', 'scope:shared'] },
  // Operators' one-shot commands (init: every service's migrations; demo; rekey; the money audit of libs/audit) reach into each context's infrastructure.
  { sourceTag: 'scope:ops', onlyDependOnLibsWithTags: ['scope:ops', 'scope:contracts', 'scope:shared', 'scope:access', 'scope:gateway', 'scope:payments', 'scope:ledger', 'scope:disputes', 'scope:withdrawals', 'scope:callbacks'] },
  // The merchant SDK (libs/sdk) is published on its own: it and its examples (libs/sdk/examples) depend on no other library of the workspace.
  { sourceTag: 'scope:sdk', onlyDependOnLibsWithTags: ['scope:sdk'] },
  // The console SPA (apps/console) runs in the browser: it reaches the platform only over HTTP, uses the shared currency table and the contracts' view types (type-only imports).
  { sourceTag: 'scope:console', onlyDependOnLibsWithTags: ['scope:shared', 'scope:contracts'] },
  { sourceTag: 'scope:e2e', onlyDependOnLibsWithTags: ['scope:contracts', 'scope:shared', 'scope:access', 'scope:sdk'] },
  // The benchmark (bench/) drives the whole system and seeds the ledger through its own write path.
  { sourceTag: 'scope:bench', onlyDependOnLibsWithTags: ['scope:shared', 'scope:contracts', 'scope:access', 'scope:payments', 'scope:ledger', 'scope:sdk'] },
  // deploy/ (launcher, service catalog and its drift check against every context) and tools/.
  { sourceTag: 'scope:deploy', onlyDependOnLibsWithTags: ['*'] },
  { sourceTag: 'scope:tools', onlyDependOnLibsWithTags: ['*'] },
  { sourceTag: 'type:tooling', onlyDependOnLibsWithTags: ['*'] },
  { sourceTag: 'type:app', onlyDependOnLibsWithTags: ['type:feature', 'type:infrastructure', 'type:domain', 'type:contract', 'type:util'] },
  { sourceTag: 'type:feature', onlyDependOnLibsWithTags: ['type:feature', 'type:infrastructure', 'type:domain', 'type:contract', 'type:util'] },
  { sourceTag: 'type:infrastructure', onlyDependOnLibsWithTags: ['type:infrastructure', 'type:domain', 'type:contract', 'type:util'] },
  { sourceTag: 'type:domain', onlyDependOnLibsWithTags: ['type:domain', 'type:contract', 'type:util'], bannedExternalImports: frameworkPackages },
  { sourceTag: 'type:contract', onlyDependOnLibsWithTags: ['type:contract', 'type:util'], bannedExternalImports: frameworkPackages },
  { sourceTag: 'type:util', onlyDependOnLibsWithTags: ['type:util'], bannedExternalImports: frameworkPackages },
  { sourceTag: 'type:testing', onlyDependOnLibsWithTags: ['type:testing', 'type:infrastructure', 'type:domain', 'type:contract', 'type:util'] },
  { sourceTag: 'type:e2e', onlyDependOnLibsWithTags: ['type:testing', 'type:domain', 'type:contract', 'type:util'] },
  { sourceTag: 'type:bench', onlyDependOnLibsWithTags: ['type:testing', 'type:infrastructure', 'type:domain', 'type:contract', 'type:util'] },
];

/** Spec files of any project may also use the testing libraries. */
const testFileConstraints = depConstraints.map((constraint) =>
  constraint.sourceTag.startsWith('type:') && !constraint.onlyDependOnLibsWithTags.includes('*')
    ? { ...constraint, onlyDependOnLibsWithTags: [...constraint.onlyDependOnLibsWithTags, 'type:testing'] }
    : constraint,
);

/**
 * A context's testing library runs that context's infrastructure, whose own specs use it: a cycle
 * through spec files only. The project graph leaves those edges out (implicitDependencies
 * "!<context>-testing" in the infrastructure's project.json), so builds and images never follow them.
 */
const boundaries = (constraints) => [
  'error',
  {
    enforceBuildableLibDependency: false,
    allow: [],
    ignoredCircularDependencies: [
      ['callbacks-infrastructure', 'callbacks-testing'],
      ['ledger-infrastructure', 'ledger-testing'],
    ],
    depConstraints: constraints,
  },
];

export default [
  ...nx.configs['flat/base'],
  ...nx.configs['flat/typescript'],
  { ignores: ['**/node_modules', '**/dist', '.local', '.nx', '**/jest.config.ts', 'jest.preset.ts'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@nx/enforce-module-boundaries': boundaries(depConstraints),
    },
  },
  {
    files: ['**/*.spec.ts', '**/*.spec.tsx'],
    rules: { '@nx/enforce-module-boundaries': boundaries(testFileConstraints) },
  },
];
