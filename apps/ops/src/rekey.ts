/**
 * Operators' master-key re-seal (docs/operations/master-key-rotation.md): rewrites every secret
 * sealed under a retired master key under the current one, so the retired key can be removed.
 *
 *   node dist/apps/ops/src/rekey.js --service gateway|payments [--batch 500] [--dry-run] [--json]
 *
 * Reads the same variables as the service: GATEWAY_DATABASE_URL and MERCHANT_SECRETS_* (merchant
 * API and webhook secrets), or PAYMENTS_DATABASE_URL and PAYMENTS_SECRETS_* (payout recipient
 * accounts). Safe while the services run and safe to rerun. Prints the values per key version
 * before, how many were re-sealed and what remains under a retired key.
 * Exit code 0 when nothing remains under a retired key, 1 when something does (a dry run, or a
 * value a service rewrote meanwhile: run again), 2 when it could not run.
 */
import 'reflect-metadata';
import { MerchantSecretsResealStore } from '@mp/access-infrastructure';
import { RECIPIENT_ACCOUNT_KEY_PURPOSE, RecipientAccountsResealStore } from '@mp/payments-infrastructure';
import { ConfigError, ConfigReader, parseCommandLine } from '@mp/shared-util-config';
import { nothingRemains, readMasterKeyring, resealRetiredValues, SecretBox, type ResealReport } from '@mp/shared-util-secret-box';
import { DataSource } from 'typeorm';

const MAX_BATCH = 10_000;
const USAGE = 'usage: node dist/apps/ops/src/rekey.js --service gateway|payments [--batch 500] [--dry-run] [--json]';

type ResealOptions = Parameters<typeof resealRetiredValues>[2];

/** What each service's secrets need: its database, its keyring, and the store of its sealed values. */
const SERVICES: Record<
  'gateway' | 'payments',
  {
    databaseUrl: string;
    keyPrefix: string;
    purpose: string | null;
    reseal: (dataSource: DataSource, box: SecretBox, options: ResealOptions) => Promise<ResealReport>;
  }
> = {
  gateway: {
    databaseUrl: 'GATEWAY_DATABASE_URL',
    keyPrefix: 'MERCHANT_SECRETS',
    purpose: null,
    reseal: (dataSource, box, options) => resealRetiredValues(new MerchantSecretsResealStore(dataSource), box, options),
  },
  payments: {
    databaseUrl: 'PAYMENTS_DATABASE_URL',
    keyPrefix: 'PAYMENTS_SECRETS',
    purpose: RECIPIENT_ACCOUNT_KEY_PURPOSE,
    reseal: (dataSource, box, options) => resealRetiredValues(new RecipientAccountsResealStore(dataSource), box, options),
  },
};

async function main(): Promise<number> {
  const { values } = parseCommandLine({
    options: {
      service: { type: 'string' },
      batch: { type: 'string', default: '500' },
      'dry-run': { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
    },
  });
  const service = values.service;
  if (service !== 'gateway' && service !== 'payments') {
    console.error(USAGE);
    return 2;
  }
  const settings = SERVICES[service];
  const reader = new ConfigReader(process.env);
  const databaseUrl = reader.url(settings.databaseUrl, { protocols: ['postgres:', 'postgresql:'] });
  const batchSize = Number(values.batch);
  if (!/^\d+$/.test(values.batch) || batchSize < 1 || batchSize > MAX_BATCH)
    reader.problem(`--batch must be a whole number from 1 to ${MAX_BATCH}, got "${values.batch}"`);
  const keyring = readMasterKeyring(reader, settings.keyPrefix);
  reader.assertValid();

  const box = new SecretBox(settings.purpose ? keyring.derive(settings.purpose) : keyring);
  const dataSource = new DataSource({ type: 'postgres', url: databaseUrl, extra: { max: 2, application_name: `ops-rekey-${service}` } });
  await dataSource.initialize();
  try {
    const report = await settings.reseal(dataSource, box, { batchSize, dryRun: values['dry-run'] });
    console.log(values.json ? JSON.stringify(report) : describe(report, keyring.retiredVersions));
    return nothingRemains(report) ? 0 : 1;
  } finally {
    await dataSource.destroy();
  }
}

function describe(report: ResealReport, retiredVersions: number[]): string {
  const counts = (byVersion: Record<number, number>) =>
    Object.keys(byVersion).length === 0
      ? 'none'
      : Object.entries(byVersion)
          .map(([version, count]) => `v${version}: ${count}`)
          .join(', ');
  const remaining = Object.values(report.remaining).reduce((sum, count) => sum + count, 0);
  return [
    `${report.store}: current key version ${report.currentVersion}, retired ${retiredVersions.length === 0 ? 'none' : retiredVersions.map((version) => `v${version}`).join(', ')}`,
    `  before:     ${counts(report.before)}`,
    report.dryRun ? `  would re-seal: ${report.resealed} (dry run: nothing was written)` : `  re-sealed:  ${report.resealed}`,
    ...(report.changedMeanwhile > 0 ? [`  changed by a running service meanwhile, left as written: ${report.changedMeanwhile}`] : []),
    `  remaining under a retired key: ${remaining === 0 ? 'none' : counts(report.remaining)}`,
    remaining === 0
      ? 'Nothing is sealed under a retired key: the retired keys can be removed.'
      : report.dryRun
        ? 'Run without --dry-run to re-seal.'
        : 'Run again: values remain under a retired key.',
  ].join('\n');
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message = error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error);
    console.error(`rekey: ${message}`);
    process.exit(2);
  },
);
