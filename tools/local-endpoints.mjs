/**
 * Where the system `npm start` is running (.local/dev/endpoints.json), for the local tools
 * that need more than the gateway's URL: they fill in what the environment does not set.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The environment with `name` taken from the running local system when unset; exits 2 when neither. */
export function withLocalDefault(name, pick, tool) {
  const env = { ...process.env };
  if (env[name]) return env;
  const endpoints = join(root, '.local/dev/endpoints.json');
  if (!existsSync(endpoints)) {
    console.error(`${tool}: set ${name}, or run \`npm start\` first to use the local system.`);
    process.exit(2);
  }
  env[name] = pick(JSON.parse(readFileSync(endpoints, 'utf8')));
  return env;
}
