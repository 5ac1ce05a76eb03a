#!/usr/bin/env node
/**
 * npm run audit [-- --json] [-- --acknowledged FILE] — the money auditor over every service's
 * database (apps/ops/src/audit.ts, docs/operations/audit.md); exit code 1 on any violation.
 *
 * Each <SERVICE>_DATABASE_URL (LEDGER_, PAYMENTS_, WITHDRAWALS_, DISPUTES_, CALLBACKS_, GATEWAY_)
 * picks a database; an unset one is the one `npm start` is running.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root, withLocalDefault } from './local-endpoints.mjs';

const SERVICES = ['ledger', 'payments', 'withdrawals', 'disputes', 'callbacks', 'gateway'];
let env = process.env;
for (const service of SERVICES) {
  const name = `${service.toUpperCase()}_DATABASE_URL`;
  env = { ...env, [name]: withLocalDefault(name, (endpoints) => endpoints.database_urls[service], 'audit')[name] };
}
const result = spawnSync(process.execPath, [join(root, 'tools/run-built.mjs'), 'apps/ops/src/audit.ts', ...process.argv.slice(2)], { env, stdio: 'inherit' });
process.exit(result.status ?? 1);
