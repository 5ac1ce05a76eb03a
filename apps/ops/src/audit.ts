/**
 * The money auditor (npm run audit): every invariant of docs/operations/audit.md, read from each
 * service's own database with read-only queries.
 *
 *   node dist/apps/ops/src/audit.js [--json] [--acknowledged FILE]
 *
 * Reads LEDGER_, PAYMENTS_, WITHDRAWALS_, DISPUTES_, CALLBACKS_ and GATEWAY_DATABASE_URL. Exit
 * code 0 when every check passed (or was skipped), 1 on any violation, 2 when it could not run.
 */
import { readFileSync } from 'node:fs';
import { AUDITED_DATABASES, auditDatabases, formatAudit, parseAcknowledgements } from '@mp/audit';
import { ConfigReader, parseCommandLine } from '@mp/shared-util-config';

async function main(): Promise<number> {
  const { values } = parseCommandLine({ options: { json: { type: 'boolean', default: false }, acknowledged: { type: 'string' } } });
  const reader = new ConfigReader(process.env);
  const urls = AUDITED_DATABASES.map((name) => [name, reader.url(`${name.toUpperCase()}_DATABASE_URL`, { protocols: ['postgres:', 'postgresql:'] })] as const);
  reader.assertValid();
  const acknowledgements =
    values.acknowledged === undefined ? undefined : parseAcknowledgements(readFileSync(values.acknowledged, 'utf8'), values.acknowledged);

  const report = await auditDatabases(Object.fromEntries(urls) as Record<(typeof urls)[number][0], string>, { acknowledgements, applicationName: 'audit' });
  console.log(values.json ? JSON.stringify(report) : formatAudit(report));
  return report.ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`audit could not run: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
