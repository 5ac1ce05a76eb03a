import type { OperatorMoneyLimits } from '@mp/ledger-domain';

/** What the ledger module needs from its app's validated config. */
export interface LedgerSettings {
  /** Partitions of `payments.order.events` when the ledger is the first to create it. */
  commandPartitions: number;
  /** The payments service's internal API: asked whether an unattached payout hold's order exists. */
  paymentsInternalUrl: string;
  /** How long after the last request for it an unattached payout hold may be voided. */
  orphanHoldGraceMs: number;
  orphanHoldSweepIntervalMs: number;
  /** The withdrawals service's internal API: asked whether an unattached withdrawal hold's withdrawal exists. */
  withdrawalsInternalUrl: string;
  /** The platform's conversion fee, taken in the source currency (basis points, rounded down). */
  conversionFeeBasisPoints: number;
  /** Rate bands, caps and four-eyes thresholds on operators' conversions and deposit adjustments. */
  operatorLimits: OperatorMoneyLimits;
}

export const LEDGER_SETTINGS = Symbol('LEDGER_SETTINGS');
