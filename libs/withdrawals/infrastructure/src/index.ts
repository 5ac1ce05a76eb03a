export { WITHDRAWALS_MIGRATIONS, WithdrawalsModule } from './withdrawals.module';
export type { SimulatorSettings, WithdrawalsSettings } from './withdrawals-settings';
export type { NetworkAdapter, NetworkSendRequest, NetworkSendResult } from './sending/network-adapter.port';
export { WITHDRAWALS_CONSUMERS } from './commands/withdrawal-command.consumer';
export { registerWithdrawalMetrics } from './withdrawal-metrics';
export { WITHDRAWALS_INTERNAL_ACCESS } from './internal-access';
export { WITHDRAWALS_PROJECTION, WITHDRAWALS_PROJECTIONS } from './rebuild/withdrawals.rebuild';
