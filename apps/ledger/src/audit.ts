/**
 * The ledger auditor (npm run ledger:audit): recomputes every balance from the postings and
 * from the event store and prints every discrepancy. Exit code 0 when the books agree, 1 when
 * there is a discrepancy, 2 when the audit could not run. Read-only; safe on a live database.
 */
import { auditLedger, formatAuditReport } from '@mp/ledger-infrastructure';
import { ConfigError, parseCommandLine } from '@mp/shared-util-config';
import { Client } from 'pg';
import { loadLedgerAuditConfig } from './ledger.config';

async function main(): Promise<number> {
  const { values } = parseCommandLine({ options: { json: { type: 'boolean', default: false } } });
  const { databaseUrl } = loadLedgerAuditConfig(process.env);
  const client = new Client({ connectionString: databaseUrl, application_name: 'ledger-audit' });
  await client.connect();
  try {
    const report = await auditLedger(client);
    console.log(values.json ? JSON.stringify(report) : formatAuditReport(report));
    return report.ok ? 0 : 1;
  } finally {
    await client.end();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`ledger audit could not run: ${error instanceof ConfigError ? error.message : error instanceof Error ? error.message : String(error)}`);
    process.exit(2);
  },
);
