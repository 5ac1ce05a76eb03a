/** What the ledger module needs from its app's validated config. */
export interface LedgerSettings {
  /** Partitions of `payments.order.events` when the ledger is the first to create it. */
  commandPartitions: number;
}

export const LEDGER_SETTINGS = Symbol('LEDGER_SETTINGS');
