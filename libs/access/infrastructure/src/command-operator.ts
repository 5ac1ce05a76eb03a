import { credentialExpiry } from '@mp/access-domain';
import type { DataSource } from 'typeorm';
import { BackofficeAuditStore } from './backoffice-audit.store';
import { BackofficeCredentialStore, issuanceAuditDetails, type CreatedBackofficeCredential } from './backoffice-credential.store';

/**
 * An operator credential a command makes (`npm run operator:create`, the demo), one that may
 * issue others: it expires after `lifetimeDays`, and its issuance is in the back-office audit
 * trail like any other, its actor the command itself (no credential).
 */
export async function createOperatorByCommand(
  dataSource: DataSource,
  name: string,
  { lifetimeDays, command, now = new Date() }: { lifetimeDays: number; command: { id: string; name: string }; now?: Date },
): Promise<CreatedBackofficeCredential> {
  const operator = await new BackofficeCredentialStore(dataSource).create('operator', name, {
    expiresAt: credentialExpiry(now, lifetimeDays),
    mayIssueOperators: true,
  });
  await new BackofficeAuditStore(dataSource).record({
    principal: { credentialId: `command:${command.id}`, role: 'command', name: command.name },
    action: `COMMAND ${command.id}`,
    path: command.id,
    merchantId: null,
    statusCode: 201,
    errorCode: null,
    reason: null,
    details: issuanceAuditDetails(operator, null),
    occurredAt: now,
  });
  return operator;
}

/** What `--json` prints for an operator a command made (operator:create, bootstrap-operator): one shape for scripts to read. */
export function issuedOperatorJson(operator: CreatedBackofficeCredential): string {
  return JSON.stringify({
    credential_id: operator.credentialId,
    operator_id: operator.operatorId,
    name: operator.name,
    expires_at: operator.expiresAt?.toISOString() ?? null,
    token: operator.token,
  });
}
