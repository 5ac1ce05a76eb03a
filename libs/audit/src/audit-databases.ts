import { Client } from 'pg';
import type { AcknowledgementRecord, AuditConnections, AuditedDatabase } from './audit-check';
import { runAudit, type AuditReport } from './audit-runner';

/**
 * Every check over the six databases at these URLs: one connection each, read-only by the
 * session rather than by trust in the queries (a check can never write), closed afterwards.
 * What `npm run audit` and the chaos run both do.
 */
export async function auditDatabases(
  urls: Readonly<Record<AuditedDatabase, string>>,
  options: { acknowledgements?: readonly AcknowledgementRecord[]; applicationName: string },
): Promise<AuditReport> {
  const clients = (Object.entries(urls) as Array<[AuditedDatabase, string]>).map(
    ([name, url]) => [name, new Client({ connectionString: url, application_name: options.applicationName })] as const,
  );
  try {
    for (const [, client] of clients) await client.connect();
    for (const [, client] of clients) await client.query('SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY');
    const connections = Object.fromEntries(clients) as unknown as AuditConnections;
    return await runAudit({ connections, acknowledgements: options.acknowledgements });
  } finally {
    await Promise.allSettled(clients.map(([, client]) => client.end()));
  }
}
