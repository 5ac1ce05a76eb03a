#!/usr/bin/env node
/**
 * npm run rekey -- --service gateway|payments [--batch 500] [--dry-run] [--json] — the master-key
 * re-seal (apps/ops/src/rekey.ts; docs/operations/master-key-rotation.md).
 *
 * The service's database URL and keyring come from the environment; unset, from the system
 * `npm start` runs (.local/dev/endpoints.json and the key files in .local/dev).
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { parseCommandLine } from './cli-arguments.mjs';
import { masterKeyringEnvironment } from '../deploy/local/master-keyring.mjs';
import { root, withLocalDefault } from './local-endpoints.mjs';

const SERVICES = { gateway: 'MERCHANT_SECRETS', payments: 'PAYMENTS_SECRETS' };
const USAGE = 'usage: npm run rekey -- --service gateway|payments [--batch 500] [--dry-run] [--json]';
const { values } = parseCommandLine(
  { options: { service: { type: 'string' }, batch: { type: 'string' }, 'dry-run': { type: 'boolean' }, json: { type: 'boolean' } } },
  USAGE,
);
const prefix = SERVICES[values.service];
// An unknown service is the command's to refuse, with its usage line.
const env = prefix
  ? {
      ...withLocalDefault(`${values.service.toUpperCase()}_DATABASE_URL`, (endpoints) => endpoints.database_urls[values.service], 'rekey'),
      ...masterKeyringEnvironment(join(root, '.local/dev'), prefix),
    }
  : process.env;
const result = spawnSync(process.execPath, [join(root, 'tools/run-built.mjs'), 'apps/ops/src/rekey.ts', ...process.argv.slice(2)], { env, stdio: 'inherit' });
process.exit(result.status ?? 2);
