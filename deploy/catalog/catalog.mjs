/**
 * The service catalog (services.json next to this file) for the .mjs scripts: `npm start`
 * reads its service list here, and the TypeScript test harness reads the same JSON file.
 * deploy/catalog/catalog.spec.ts checks it against the code.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const CATALOG_FILE = join(dirname(fileURLToPath(import.meta.url)), 'services.json');

/** The parsed catalog: `kafka`, `topics` and `services` (in start order). */
export const catalog = JSON.parse(readFileSync(CATALOG_FILE, 'utf8'));

/** The services in start order: { name, entry, devPort, database, health, consumerGroups }. */
export const catalogServices = catalog.services;
