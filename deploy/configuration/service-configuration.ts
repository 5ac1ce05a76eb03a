/**
 * Every variable each service of the catalog reads, from its config reader: the catalog names the
 * reader's file (`config`, e.g. apps/ledger/src/ledger.config.ts) and the file exports
 * `load<Name>Config(environment)` after it (ledger.config.ts: loadLedgerConfig). A setting added to
 * a reader, or a service added to the catalog, is listed here without being named anywhere else.
 */
import { readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { describeConfiguration, renderConfigurationTable, type Environment, type ServiceConfiguration } from '@mp/shared-util-config';

export const repositoryRoot = resolve(__dirname, '../..');
/** The operator's page that holds the generated table. */
export const CONFIGURATION_DOC = join(repositoryRoot, 'docs/operations/configuration.md');

interface CatalogService {
  name: string;
  config: string;
}

const loaderName = (configFile: string): string =>
  `load${basename(configFile, '.config.ts')
    .split('-')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('')}Config`;

export async function serviceConfigurations(): Promise<ServiceConfiguration[]> {
  const { services } = JSON.parse(readFileSync(join(repositoryRoot, 'deploy/catalog/services.json'), 'utf8')) as { services: CatalogService[] };
  const configurations: ServiceConfiguration[] = [];
  for (const { name, config } of services) {
    // By path, from the catalog: apps are not libraries, so no import alias reaches them.
    const module = (await import(join(repositoryRoot, config))) as Record<string, unknown>;
    const load = module[loaderName(config)];
    if (typeof load !== 'function') throw new Error(`${config} exports no ${loaderName(config)}(environment), the config loader of ${name}`);
    configurations.push({ service: name, variables: describeConfiguration(load as (environment: Environment) => unknown) });
  }
  return configurations;
}

export async function configurationTable(): Promise<string> {
  return renderConfigurationTable(await serviceConfigurations());
}
