// The start command's settings: the supported Node, the repository root, the mode, the state directory and its log directory.
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCommandLine } from '../../../tools/cli-arguments.mjs';
import { requireSupportedNode } from '../../../tools/node-version.mjs';

requireSupportedNode('start');

export const root = join(dirname(fileURLToPath(import.meta.url)), '../../..');
if (!existsSync(join(root, 'node_modules/.bin/tsc'))) {
  // A fresh clone: say what to do instead of failing on a missing binary.
  console.error('[start] dependencies are not installed: run `npm ci` first');
  process.exit(1);
}
export const mode = parseMode();
export const stateDir = mode === 'dev' ? join(root, '.local/dev') : resolve(process.env.MP_LOCAL_DIR ?? mkdtempSync(join(tmpdir(), 'mp-start-')));
export const logDir = join(stateDir, 'logs');
export const envPrefix = (service) => service.toUpperCase().replaceAll('-', '_');
/** A path as the user can type it: relative to where they are when it is below, else absolute. */
export function shown(path) {
  const below = relative(process.cwd(), path);
  return below && !below.startsWith('..') && !isAbsolute(below) ? below : path;
}
export const say = (line) => console.log(`[start] ${line}`);

export function parseMode() {
  const usage = 'usage: node deploy/local/start.mjs [--mode dev|test]';
  const { values } = parseCommandLine({ options: { mode: { type: 'string', default: 'dev' } } }, usage);
  if (values.mode !== 'dev' && values.mode !== 'test') {
    console.error(usage);
    process.exit(2);
  }
  return values.mode;
}
