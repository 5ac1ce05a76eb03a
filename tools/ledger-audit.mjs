#!/usr/bin/env node
/**
 * npm run ledger:audit — recomputes every balance from the ledger's postings and prints any
 * discrepancy (exit code 1 when there is one; see apps/ledger/src/audit.ts).
 *
 * LEDGER_DATABASE_URL picks the database; unset, it is the one `npm start` is running
 * (.local/dev/endpoints.json).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env };
if (!env.LEDGER_DATABASE_URL) {
  const endpoints = join(root, '.local/dev/endpoints.json');
  if (!existsSync(endpoints)) {
    console.error('ledger:audit: set LEDGER_DATABASE_URL, or run `npm start` first to audit the local system.');
    process.exit(2);
  }
  env.LEDGER_DATABASE_URL = JSON.parse(readFileSync(endpoints, 'utf8')).database_urls.ledger;
}
const result = spawnSync(process.execPath, [join(root, 'tools/run-ts.js'), join(root, 'apps/ledger/src/audit.ts'), ...process.argv.slice(2)], { env, stdio: 'inherit' });
process.exit(result.status ?? 1);
