/**
 * npm run config:docs: writes the table of docs/operations/configuration.md from the services'
 * config readers (service-configuration.ts). configuration-table.spec.ts fails while the page and
 * the readers differ.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { replaceGeneratedTable } from '@mp/shared-util-config';
import { CONFIGURATION_DOC, configurationTable } from './service-configuration';

async function main(): Promise<void> {
  const before = readFileSync(CONFIGURATION_DOC, 'utf8');
  const after = replaceGeneratedTable(before, await configurationTable());
  if (after === before) {
    console.log(`${CONFIGURATION_DOC}: up to date`);
    return;
  }
  writeFileSync(CONFIGURATION_DOC, after);
  console.log(`${CONFIGURATION_DOC}: table rewritten`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
