import type { BackofficeWithdrawalView, WithdrawalAssetView, WithdrawalView } from './withdrawal-view';

/**
 * The withdrawals service's internal HTTP API (reads only; writes are commands):
 * - `GET /internal/merchants/:merchantId/withdrawals/:orderId` → `WithdrawalView`, 404
 *   `WITHDRAWAL_NOT_FOUND` for another merchant's or a missing one;
 * - `GET /internal/merchants/:merchantId/withdrawals?status=&created_from=&created_to=&limit=&cursor=`
 *   → `WithdrawalListPage`, newest first;
 * - `GET /internal/withdrawal-assets` → `{ data: WithdrawalAssetView[] }`;
 * - `GET /internal/withdrawals/stuck?older_than_seconds=` → `{ data: BackofficeWithdrawalView[] }`
 *   (operators: PENDING for longer than that);
 * - `GET /internal/withdrawals/:merchantId/:orderId` → `BackofficeWithdrawalView` (operators:
 *   send progress and the reconciliation's evidence), 404 `WITHDRAWAL_NOT_FOUND`.
 */
export interface WithdrawalListPage {
  data: WithdrawalView[];
  has_more: boolean;
  next_cursor: string | null;
}

export interface WithdrawalAssetsView {
  data: WithdrawalAssetView[];
}

export interface StuckWithdrawalsView {
  data: BackofficeWithdrawalView[];
}
