/** What the ledger module needs from its app's validated config. */
export interface LedgerSettings {
  /** Partitions of `payments.order.events` when the ledger is the first to create it. */
  commandPartitions: number;
  /** The payments service's internal API: asked whether an unattached payout hold's order exists. */
  paymentsInternalUrl: string;
  /** How long after the last request for it an unattached payout hold may be voided. */
  orphanHoldGraceMs: number;
  orphanHoldSweepIntervalMs: number;
}

export const LEDGER_SETTINGS = Symbol('LEDGER_SETTINGS');
