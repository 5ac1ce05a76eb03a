/**
 * The ledger service's internal HTTP API (not exposed to merchants). Amounts are integer minor
 * units as decimal strings. Errors use the platform error body `{code, message, details}`.
 */

/**
 * POST /internal/holds — freezes amount + fee of the merchant's available settlement balance,
 * synchronously, before a payout or withdrawal exists. Idempotent by `hold_id`: the same id
 * again answers 200 with the existing hold. 400 `INSUFFICIENT_FUNDS` when not available.
 */
export interface PlaceHoldRequest {
  hold_id: string;
  merchant_id: string;
  currency: string;
  amount_minor: string;
  fee_minor: string;
  reference: { kind: 'payment_order' | 'withdrawal'; id: string };
}

export interface HoldView {
  hold_id: string;
  status: 'pending' | 'posted' | 'voided';
  amount_minor: string;
  fee_minor: string;
}

/** GET /internal/merchants/:merchantId/balances — spec endpoint 9's body, amounts as decimal strings. */
export interface BalancesView {
  settlement: Array<{ currency: string; available: string; frozen: string }>;
  deposit: Array<{ currency: string; available: string }>;
}

/** POST /internal/merchants/:merchantId/deposit-adjustments — operators only, audited. */
export interface DepositAdjustmentRequest {
  adjustment_id: string;
  currency: string;
  /** Signed: positive tops up, negative takes away. */
  amount_minor: string;
  reason: string;
  operator_id: string;
}
