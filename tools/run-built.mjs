#!/usr/bin/env node
/**
 * Runs a workspace entry point from its built JavaScript, building its project first (a no-op
 * when nothing changed): `node tools/run-built.mjs apps/gateway/src/create-merchant.ts --name Shop`.
 * The build's output goes to .local/build.log, so the command's own stdout stays clean for
 * scripts that read it (e.g. --json).
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { build, builtEntry, projectOf, root } from './build-workspace.mjs';

const [entry, ...args] = process.argv.slice(2);
if (!entry || !existsSync(join(root, entry))) {
  console.error('usage: node tools/run-built.mjs <apps/…/src/entry.ts> [args...]');
  process.exit(2);
}
try {
  await build({ projects: [projectOf(entry)], logFile: join(root, '.local/build.log') });
} catch (error) {
  console.error(error.message);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--enable-source-maps', builtEntry(entry), ...args], { stdio: 'inherit' });
process.exit(result.status ?? 1);
