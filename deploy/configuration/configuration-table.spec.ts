/**
 * Goal: docs/operations/configuration.md lists exactly what the services read. Its table is
 * generated from the config readers (npm run config:docs); this fails while the page and the
 * readers differ, and while a variable a service reads has no description for the operator.
 */
import { readFileSync } from 'node:fs';
import { GENERATED_TABLE_BEGIN, GENERATED_TABLE_END, replaceGeneratedTable, type ServiceConfiguration } from '@mp/shared-util-config';
import { CONFIGURATION_DOC, configurationTable, serviceConfigurations } from './service-configuration';

describe('docs/operations/configuration.md and the config readers', () => {
  let configurations: ServiceConfiguration[];
  beforeAll(async () => {
    configurations = await serviceConfigurations();
  }, 60_000);

  it('holds the table the readers generate (run npm run config:docs after changing a reader)', async () => {
    const page = readFileSync(CONFIGURATION_DOC, 'utf8');
    expect(page).toContain(GENERATED_TABLE_BEGIN);
    expect(page).toContain(GENERATED_TABLE_END);
    expect(page).toBe(replaceGeneratedTable(page, await configurationTable()));
  });

  it('gives every variable a service reads a description', () => {
    const undescribed = configurations.flatMap(({ service, variables }) =>
      variables.filter(({ description }) => !description).map(({ name }) => `${service}: ${name}`),
    );
    expect(undescribed).toEqual([]);
  });

  it("finds each service's own settings, the shared ones, and the ones read only with SASL_SSL", () => {
    const names = new Map(configurations.map(({ service, variables }) => [service, variables.map(({ name }) => name)]));
    expect([...names.keys()].sort()).toEqual(['callbacks', 'disputes', 'gateway', 'ledger', 'payments', 'withdrawals']);
    for (const [service, variables] of names) {
      const prefix = service.toUpperCase();
      expect(variables).toEqual(
        expect.arrayContaining([
          `${prefix}_DATABASE_URL`,
          `${prefix}_DATABASE_POOL_MAX`,
          `${prefix}_HTTP_PORT`,
          'LOG_FORMAT',
          'KAFKA_BROKERS',
          'KAFKA_SASL_USERNAME',
          'SERVICE_TOKEN_PRIVATE_KEY',
          'SHUTDOWN_GRACE_MS',
        ]),
      );
    }
    expect(names.get('disputes')).toEqual(expect.arrayContaining(['DISPUTE_REVIEW_WINDOW_HOURS']));
    expect(names.get('gateway')).toEqual(
      expect.arrayContaining(['DISPUTES_INTERNAL_URL', 'MERCHANT_SECRETS_NEXT_KEY', 'GATEWAY_RATE_LIMIT_AUTH_FAILURES_BURST']),
    );
  });
});
