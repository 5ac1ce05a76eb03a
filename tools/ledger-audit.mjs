#!/usr/bin/env node
/**
 * npm run ledger:audit — recomputes every balance from the ledger's postings and prints any
 * discrepancy (exit code 1 when there is one; see apps/ledger/src/audit.ts).
 *
 * LEDGER_DATABASE_URL picks the database; unset, it is the one `npm start` is running.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root, withLocalDefault } from './local-endpoints.mjs';

const env = withLocalDefault('LEDGER_DATABASE_URL', (endpoints) => endpoints.database_urls.ledger, 'ledger:audit');
const result = spawnSync(process.execPath, [join(root, 'tools/run-built.mjs'), 'apps/ledger/src/audit.ts', ...process.argv.slice(2)], {
  env,
  stdio: 'inherit',
});
process.exit(result.status ?? 1);
