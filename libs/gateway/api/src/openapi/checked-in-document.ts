import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root, from libs/gateway/api/src/openapi (where the drift tests live) or dist/ builds of it alike. */
const ROOT = join(__dirname, '..', '..', '..', '..', '..');

/**
 * For the drift tests: throws unless the checked-in description is exactly the generated one,
 * naming the first line that differs and the command that regenerates it.
 */
export function assertCheckedIn(file: string, generated: string): void {
  const checkedIn = readFileSync(join(ROOT, file), 'utf8');
  if (checkedIn === generated) return;
  const at = [...checkedIn].findIndex((character, index) => character !== generated[index]);
  const line = checkedIn.slice(0, at).split('\n').length;
  throw new Error(`${file} is out of date from line ${line} on: run \`npm run openapi\` and commit ${file}`);
}
