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

/** A ledger's balances at an instant, in minor units, per account. */
export type AccountBalancesInMinorUnits = Record<'settlement_available' | 'settlement_frozen' | 'deposit' | 'fee_revenue' | 'clearing' | 'fx', string>;

/** GET /internal/merchants/:merchantId/balances/end-of-day?date= — operators: one UTC day's opening and closing balances, from the postings. */
export interface EndOfDayBalancesView {
  merchant_id: string;
  /** The UTC day, YYYY-MM-DD. */
  date: string;
  /** Per currency: the balances at the day's start (the previous day's end) and at its end. */
  currencies: Array<{ currency: string; opening: AccountBalancesInMinorUnits; closing: AccountBalancesInMinorUnits }>;
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

/** POST /internal/merchants/:merchantId/deposit-adjustments answers with this (201 booked now, 200 a repeat). */
export interface DepositAdjustmentView {
  adjustment_id: string;
  merchant_id: string;
  currency: string;
  /** Signed minor units: "-500" took 5.00 away. */
  amount_minor: string;
  amount: string;
  reason: string;
  operator_id: string;
  event_id: string;
  recorded_at: string;
  deposit: { currency: string; available: string };
}

/** One statement line: a posting with the order, withdrawal or adjustment it belongs to. */
export interface LedgerEntryView {
  posting_id: string;
  currency: string;
  code: string;
  debit_account: string;
  credit_account: string;
  amount_minor: string;
  /** The same amount as a decimal in the currency's scale. */
  amount: string;
  reference: { kind: string; id: string };
  event_id: string;
  memo: string;
  recorded_at: string;
}

/**
 * GET /internal/merchants/:merchantId/ledger-anchor?date&currency — the hash of the merchant's
 * last ledger event in that currency recorded by the end of that UTC day (the head of its
 * stream, chained over every earlier one; docs/decisions/event-hash-chain.md); null when there
 * was none yet. Once the day is anchored, the ledger's anchor of that day lists this head.
 */
export interface LedgerAnchorView {
  anchor: { stream_id: string; stream_version: number; hash: string } | null;
}

/** GET /internal/merchants/:merchantId/entries — a statement page, newest first. */
export interface LedgerEntriesPage {
  data: LedgerEntryView[];
  has_more: boolean;
  next_cursor: string | null;
}

/**
 * POST /internal/merchants/:merchantId/conversions — operators only, audited. Converts
 * `amount_minor` of `from_currency` settlement into `to_currency` at `rate` (units of the
 * target per unit of the source, a decimal string), less the platform's conversion fee taken
 * in the source currency. Idempotent by `conversion_id`: 201 booked now, 200 a repeat (the
 * original comes back); other terms under a used id are 400 VALIDATION_ERROR; 400
 * INSUFFICIENT_FUNDS when the available source balance does not cover the amount.
 */
export interface ConversionRequest {
  conversion_id: string;
  from_currency: string;
  to_currency: string;
  amount_minor: string;
  rate: string;
  reason: string;
  operator_id: string;
}

export interface ConversionView {
  conversion_id: string;
  merchant_id: string;
  from_currency: string;
  to_currency: string;
  /** Decimal strings in each currency's scale. */
  from_amount: string;
  fee: string;
  to_amount: string;
  rate: string;
  reason: string;
  operator_id: string;
  recorded_at: string;
}

/**
 * A conversion or deposit adjustment above its currency's approval threshold: POST of either
 * answers 202 with this instead of booking, and nothing moves until a second operator approves
 * (POST /internal/approvals/:approvalId/approve). `terms` is the request as the ledger took it.
 */
export interface OperatorApprovalView {
  approval_id: string;
  kind: 'conversion' | 'deposit_adjustment';
  merchant_id: string;
  /** The conversion_id or adjustment_id that is booked on approval. */
  subject_id: string;
  status: 'pending' | 'approved' | 'rejected' | 'expired';
  terms: Record<string, string>;
  requested_by: string;
  requested_at: string;
  expires_at: string;
  decided_by: string | null;
  decided_at: string | null;
  decision_reason: string | null;
}

/** POST /internal/approvals/:approvalId/approve and /reject; `reason` is required to reject. */
export interface ApprovalDecisionRequest {
  operator_id: string;
  reason?: string;
  /**
   * Approvals only: operators related to the approver by issuance (who issued his credential, up
   * the chain, and whom he issued). A request of any of them is refused like his own. Absent from
   * an older gateway: then only the requester himself is refused.
   */
  related_operator_ids?: string[];
}
