// The Node major this project runs on (docs/operations/runtime-versions.md), checked by the
// commands a newcomer types first (npm start, npm test) so that an older Node gets one clear line
// instead of a failure deep inside a dependency.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from './build-workspace.mjs';

/** The major of .nvmrc: the one the Dockerfile, engines and tools/setup-node.sh also name. */
export const REQUIRED_NODE_MAJOR = Number(readFileSync(join(root, '.nvmrc'), 'utf8').trim());

/** Exits with a message saying how to get Node 24 when this process runs on an older major. */
export function requireSupportedNode(command) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= REQUIRED_NODE_MAJOR) return;
  console.error(
    `[${command}] Node.js ${REQUIRED_NODE_MAJOR} LTS is required, this is ${process.version}. ` +
      `Install it, or let the project fetch it from the npm registry: export PATH="$(bash tools/setup-node.sh):$PATH"`,
  );
  process.exit(1);
}
