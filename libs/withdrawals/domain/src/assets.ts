/**
 * The crypto assets merchants can withdraw to (docs/api/states.md "Withdrawals").
 * A withdrawal's `currency` names an asset on a network; balances are kept per balance asset,
 * so `USDT-TRC20` and `USDT-ERC20` both draw on the merchant's `USDT` settlement balance.
 *
 * Amounts are minor units of the balance asset (its scale comes from util-money's table, which
 * is append-only). The table is configuration: operators may replace it at boot (see
 * `parseAssetTable`), but a code never changes network or balance asset once money moved.
 */
export type WalletNetwork = 'TRON' | 'ETHEREUM' | 'BITCOIN';

export interface WithdrawalAsset {
  /** What merchants send as `currency`, e.g. `USDT-TRC20`. */
  code: string;
  network: WalletNetwork;
  /** The settlement balance it draws on, e.g. `USDT`. */
  balanceAsset: string;
  /** The smallest amount accepted, in minor units of the balance asset. */
  minAmountMinor: bigint;
  /** Charged on top of the amount and frozen with it, in minor units of the balance asset. */
  networkFeeMinor: bigint;
}

export const DEFAULT_WITHDRAWAL_ASSETS: readonly WithdrawalAsset[] = [
  { code: 'USDT-TRC20', network: 'TRON', balanceAsset: 'USDT', minAmountMinor: 10_000_000n, networkFeeMinor: 1_000_000n },
  { code: 'USDT-ERC20', network: 'ETHEREUM', balanceAsset: 'USDT', minAmountMinor: 20_000_000n, networkFeeMinor: 5_000_000n },
  { code: 'BTC', network: 'BITCOIN', balanceAsset: 'BTC', minAmountMinor: 10_000n, networkFeeMinor: 5_000n },
  { code: 'ETH', network: 'ETHEREUM', balanceAsset: 'ETH', minAmountMinor: 5_000_000_000_000_000n, networkFeeMinor: 1_000_000_000_000_000n },
  { code: 'TRX', network: 'TRON', balanceAsset: 'TRX', minAmountMinor: 10_000_000n, networkFeeMinor: 1_000_000n },
];

export function findWithdrawalAsset(assets: readonly WithdrawalAsset[], code: string): WithdrawalAsset | undefined {
  return assets.find((asset) => asset.code === code);
}
