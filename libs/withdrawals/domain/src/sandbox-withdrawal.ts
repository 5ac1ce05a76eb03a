/**
 * The network simulator's magic amounts for a test-mode merchant's withdrawals
 * (docs/api/sandbox.md), by the same digits as the sandbox's orders: an amount whose minor
 * units end in 01 (10.000001 USDT) is rejected by the network, any other is sent.
 */
export function sandboxWithdrawalFails(amountMinor: bigint): boolean {
  return amountMinor % 100n === 1n;
}

/** The failure reason the simulator gives a magic amount, as the withdrawal's `failure_reason` shows it. */
export const SANDBOX_WITHDRAWAL_FAILURE_REASON = 'sandbox: the simulated network rejected the transfer (amount ending in 01)';
