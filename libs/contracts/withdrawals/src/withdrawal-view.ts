/** The longest wallet address accepted, on every network: the gateway refuses a longer one before the withdrawals service reads it. */
export const WALLET_ADDRESS_MAX_LENGTH = 100;

/** docs/api/states.md: PENDING (debited and frozen), then COMPLETED or FAILED. */
export const WITHDRAWAL_STATUSES = ['PENDING', 'COMPLETED', 'FAILED'] as const;
export type WithdrawalStatusView = (typeof WITHDRAWAL_STATUSES)[number];

/**
 * The withdrawal state object (endpoint 13, list items of endpoint 12, callbacks): the same
 * object everywhere. Amounts are decimal strings between services (the gateway writes them to
 * merchants as JSON numbers with the same digits), in the balance asset's scale.
 */
export interface WithdrawalView {
  order_id: string;
  status: WithdrawalStatusView;
  amount: string;
  network_fee: string;
  /** The asset code the merchant sent, e.g. `USDT-TRC20`. */
  currency: string;
  network: string;
  address: string;
  transaction_hash: string | null;
  failure_reason: string | null;
  /** The merchant's own reference data, as sent on create (`{}` when none). */
  metadata: Record<string, string>;
  created_at: string;
  updated_at: string;
}

/** What operators see: the state object plus the merchant, where the sender stands and any reconciliation. */
export interface BackofficeWithdrawalView extends WithdrawalView {
  merchant_id: string;
  send_progress: 'queued' | 'sending' | 'finished';
  send_attempts: number;
  reconciliation: ReconciliationView | null;
}

/**
 * The evidence of an operator's reconciliation: what the network adapter said about the
 * withdrawal's idempotency key, when, and which operator asked. `dropped`: the network never
 * sent under the key and now refuses it; `pending`: it has not decided yet.
 */
export interface ReconciliationView {
  asked_by: string;
  asked_at: string;
  idempotency_key: string;
  network_answer: { status: 'completed'; transaction_hash: string } | { status: 'failed' | 'dropped'; reason: string } | { status: 'pending' };
}

/** A withdrawal asset as the methods endpoint lists it (docs/api/states.md "Withdrawals"). */
export interface WithdrawalAssetView {
  code: string;
  network: string;
  balance_asset: string;
  /** Decimal strings in the balance asset's scale. */
  min_amount: string;
  network_fee: string;
}

/**
 * The asset codes merchants may send as a withdrawal's `currency`, with the settlement balance
 * each draws on (docs/api/states.md "Withdrawals"). Codes and balance assets are
 * fixed once money moved (minimums and network fees are the withdrawals service's
 * configuration), so the gateway checks a request's form against this table without a call.
 */
export const WITHDRAWAL_ASSET_BALANCES: Readonly<Record<string, string>> = {
  'USDT-TRC20': 'USDT',
  'USDT-ERC20': 'USDT',
  BTC: 'BTC',
  ETH: 'ETH',
  TRX: 'TRX',
};

/**
 * The balance asset of a withdrawal asset code, or undefined for any other string. Own keys
 * only: a merchant's `currency` of "constructor" or "__proto__" must not find Object.prototype.
 */
export function withdrawalBalanceAssetOf(assetCode: string): string | undefined {
  return Object.hasOwn(WITHDRAWAL_ASSET_BALANCES, assetCode) ? WITHDRAWAL_ASSET_BALANCES[assetCode] : undefined;
}
