import type { WithdrawalAsset } from '@mp/withdrawals-domain';

/** What the withdrawals module needs from its app's validated config. */
export interface WithdrawalsSettings {
  commandPartitions: number;
  /** The asset table (docs/api/states.md "Withdrawals"): codes, networks, minimums and network fees. */
  assets: readonly WithdrawalAsset[];
  ledgerInternalUrl: string;
  ledgerTimeoutMs: number;
  /** How often the sender looks for withdrawals to send. */
  sendIntervalMs: number;
  /** How long a replica owns a withdrawal it claimed; after that (a crash) another may resume it. */
  sendLeaseMs: number;
  /** How many withdrawals one replica sends at once. */
  sendConcurrency: number;
  simulator: SimulatorSettings;
  /** Test-only fault injection: SIGKILL right after the network accepted a send, before it is recorded. */
  crashAfterNetworkSend: boolean;
}

/** The default network adapter: a simulated network, so the whole flow runs locally. */
export interface SimulatorSettings {
  delayMs: number;
  outcome: 'succeed' | 'fail';
  /** Addresses matching this fail whatever `outcome` says (for tests and demos). */
  failAddressPattern: RegExp | null;
}

export const WITHDRAWALS_SETTINGS = Symbol('WITHDRAWALS_SETTINGS');
