/** The services whose databases the auditor reads, each its own PostgreSQL database. */
export const AUDITED_DATABASES = ['ledger', 'payments', 'withdrawals', 'disputes', 'callbacks', 'gateway'] as const;
export type AuditedDatabase = (typeof AUDITED_DATABASES)[number];

/** The one thing a check needs from a database connection (a pg Client fits). */
export interface AuditConnection {
  query<Row>(sql: string, values?: unknown[]): Promise<{ rows: Row[] }>;
}

export type AuditConnections = Record<AuditedDatabase, AuditConnection>;

/** A caller's record of one request it sent (a load or chaos runner writes one JSON line per request). */
export interface AcknowledgementRecord {
  merchant_id: string;
  order_id: string;
  kind: 'payment' | 'withdrawal';
  /** true: the platform answered 2xx, so the order must exist; false: it refused, so it must not. */
  acknowledged: boolean;
}

/** One broken invariant, on one merchant's money where it has one (sandbox ones are reported apart). */
export interface Violation {
  merchantId: string | null;
  message: string;
}

export interface AuditContext {
  connections: AuditConnections;
  /** Undefined when the caller gave no record: the checks that need it are skipped. */
  acknowledgements?: readonly AcknowledgementRecord[];
}

/**
 * One invariant: a stable name (reports and tests key on it), what it means, the databases it
 * reads, and how it finds violations. Each check is a bounded number of aggregate queries (one
 * per database it reads), never one per object. `run` returns null when it cannot run (what it
 * needs was not given) so the report says it was skipped.
 */
export interface AuditCheck {
  name: string;
  description: string;
  reads: readonly AuditedDatabase[];
  run(context: AuditContext): Promise<Violation[] | null>;
}

/** Sandbox merchants are `test_` and their live merchant's id (docs/operations/sandbox.md). */
export const isSandboxMerchant = (merchantId: string | null): boolean => merchantId?.startsWith('test_') ?? false;
