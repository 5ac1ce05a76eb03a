export { LEDGER_MIGRATIONS, LedgerModule } from './ledger.module';
export { LEDGER_SETTINGS, type LedgerSettings } from './ledger-settings';
export { handleLedgerCommand, ledgerEvents, type LedgerCommandResult } from './commands/ledger.handling';
export { LEDGER_CONSUMERS, LEDGER_PAYMENT_EVENTS_GROUP, LEDGER_PAYMENT_EVENTS_INBOX } from './commands/payment-events.consumer';
export { ledgerCommandFor } from './commands/payment-event.mapping';
export { auditLedger, formatAuditReport, type AuditConnection, type LedgerAuditReport } from './audit/ledger-audit';
export { RECONCILIATION_COLUMNS } from './reads/reconciliation-csv';
export { LEDGER_POSTINGS_METRIC, registerLedgerMetrics } from './ledger-metrics';
export { LEDGER_INTERNAL_ACCESS } from './internal-access';
