export { WITHDRAWALS_TOPICS, withdrawalHoldId, withdrawalKey } from './topics';
export {
  WALLET_ADDRESS_MAX_LENGTH,
  WITHDRAWAL_ASSET_BALANCES,
  WITHDRAWAL_STATUSES,
  withdrawalBalanceAssetOf,
  type BackofficeWithdrawalView,
  type ReconciliationView,
  type WithdrawalAssetView,
  type WithdrawalStatusView,
  type WithdrawalView,
} from './withdrawal-view';
export {
  WITHDRAWAL_COMMAND_SCHEMA_VERSION,
  WITHDRAWAL_COMMAND_TYPES,
  type ReconcileWithdrawalData,
  type RequestWithdrawalData,
  type ResolveWithdrawalData,
  type WithdrawalCommandDataByType,
  type WithdrawalCommandReplyData,
  type WithdrawalCommandType,
} from './commands';
export {
  WITHDRAWAL_EXTERNAL_EVENT_CONTRACT,
  WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION,
  WithdrawalExternalEventPayload,
  WITHDRAWAL_EXTERNAL_EVENT_TYPES,
  type WithdrawalExternalEvent,
  type WithdrawalExternalEventData,
  type WithdrawalExternalEventType,
} from './external-events';
export type { StuckWithdrawalsView, WithdrawalAssetsView, WithdrawalListPage } from './internal-api';
export { StuckWithdrawalsQueryDto, WithdrawalListFilterFieldsDto, WithdrawalListQueryDto } from './requests';
