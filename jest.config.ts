import type { Config } from 'jest';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every Nx project that has a jest config: apps/<app>, libs/<context>/<lib>, bench, deploy and tools. */
function projectConfigs(): string[] {
  const candidates: string[] = [];
  for (const app of readdirSync(join(__dirname, 'apps'))) candidates.push(join('apps', app));
  for (const context of readdirSync(join(__dirname, 'libs'))) {
    // A library that is a context of its own (libs/sdk, the publishable merchant SDK).
    candidates.push(join('libs', context));
    for (const lib of readdirSync(join(__dirname, 'libs', context))) candidates.push(join('libs', context, lib));
  }
  // The benchmark harness (bench/) has unit tests of its own; the benchmark itself is `npm run bench`.
  candidates.push('bench');
  // deploy/ checks the service catalog against the code (deploy/catalog/catalog.spec.ts).
  candidates.push('deploy', 'tools');
  // The chaos runner (tools/chaos/) has unit tests of its own; the run itself is `npm run chaos`.
  candidates.push(join('tools', 'chaos'));
  return candidates.map((dir) => join(__dirname, dir, 'jest.config.ts')).filter((file) => existsSync(file));
}

const config: Config = { projects: projectConfigs() };

export default config;
