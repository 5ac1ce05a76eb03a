#!/usr/bin/env node
/**
 * npm run rebuild -- <service> <projection> [--switch] [--json] | --list — rebuilds a projection
 * from its service's event store (apps/ops/src/rebuild-projection.ts,
 * docs/operations/projection-rebuild.md). <SERVICE>_MIGRATION_DATABASE_URL picks the database;
 * unset, the one `npm start` is running.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { root, withLocalDefault } from './local-endpoints.mjs';

const args = process.argv.slice(2);
const service = args.find((arg) => !arg.startsWith('-'));
const name = service ? `${service.toUpperCase()}_MIGRATION_DATABASE_URL` : undefined;
const env = name && !args.includes('--list') ? withLocalDefault(name, (endpoints) => endpoints.database_urls[service], 'rebuild') : process.env;
const result = spawnSync(process.execPath, [join(root, 'tools/run-built.mjs'), 'apps/ops/src/rebuild-projection.ts', ...args], { env, stdio: 'inherit' });
process.exit(result.status ?? 1);
