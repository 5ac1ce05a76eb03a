export { LEDGER_MIGRATIONS, LedgerModule } from './ledger.module';
export { LEDGER_SETTINGS, type LedgerSettings } from './ledger-settings';
export { LEDGER_EVENT_SCHEMA_VERSION, LedgerExecutor, type Causation, type LedgerExecution } from './commands/ledger.executor';
// The ledger's write path in pieces, for the benchmark's bulk seeding of a merchant's history (bench/src/history.ts).
export { lockLedger, projectLedgerEvents } from './persistence/ledger.projection';
export { LEDGER_PAYMENT_EVENTS_GROUP, LEDGER_PAYMENT_EVENTS_INBOX } from './commands/payment-events.consumer';
export { ledgerCommandFor } from './commands/payment-event.mapping';
export { auditLedger, formatAuditReport, type AuditConnection, type LedgerAuditReport } from './audit/ledger-audit';
export { RECONCILIATION_COLUMNS } from './reads/reconciliation-csv';
