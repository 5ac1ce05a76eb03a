export { DEFAULT_WITHDRAWAL_ASSETS, findWithdrawalAsset, type WalletNetwork, type WithdrawalAsset } from './assets';
export { checkWalletAddress, detectNetwork, eip55Checksummed, type AddressCheck, type DetectedNetwork } from './wallet-address';
export {
  decideWithdrawal,
  evolveWithdrawal,
  initialWithdrawal,
  toWithdrawalStreamId,
  withdrawalDecider,
  WITHDRAWAL_EVENT_SCHEMAS,
  type ExistingWithdrawal,
  type LateNetworkResultRecorded,
  type NetworkAnswer,
  type ReconciliationEvidence,
  type SendProgress,
  type Withdrawal,
  type WithdrawalCommand,
  type WithdrawalEvent,
  type WithdrawalStatus,
} from './withdrawal.decider';
export { SANDBOX_WITHDRAWAL_FAILURE_REASON, sandboxWithdrawalFails } from './sandbox-withdrawal';
