export {
  AUDITED_DATABASES,
  isSandboxMerchant,
  type AcknowledgementRecord,
  type AuditCheck,
  type AuditConnection,
  type AuditConnections,
  type AuditContext,
  type AuditedDatabase,
  type Violation,
} from './audit-check';
export { AUDIT_CHECKS, formatAudit, runAudit, type AuditReport, type CheckResult } from './audit-runner';
export { parseAcknowledgements } from './acknowledgements';
export { auditDatabases } from './audit-databases';
