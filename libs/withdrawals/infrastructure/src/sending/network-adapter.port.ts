import type { NetworkAnswer } from '@mp/withdrawals-domain';

/**
 * The port to a blockchain network (or a custodian that sends for us). The one rule every
 * adapter keeps: a send is keyed by `idempotencyKey` (the withdrawal's id), and presenting the
 * same key again returns the first send's result instead of sending again. That is what makes
 * the sender resumable after a crash without ever paying twice.
 */
export interface NetworkSendRequest {
  /** Whose withdrawal: a test-mode merchant's (`test_…`) only ever reaches the simulator (ModeRoutingNetworkAdapter). */
  merchantId: string;
  idempotencyKey: string;
  network: string;
  address: string;
  /** The asset code, e.g. `USDT-TRC20`, and the amount in minor units of its balance asset. */
  currency: string;
  amountMinor: bigint;
}

export type NetworkSendResult = { outcome: 'completed'; transactionHash: string } | { outcome: 'failed'; reason: string };

export interface NetworkAdapter {
  /** Throws on a transient problem (nothing known about the send): the sender tries again later with the same key. */
  send(request: NetworkSendRequest): Promise<NetworkSendResult>;
  /**
   * What the network knows about a key (an operator's reconciliation). The second rule: an
   * adapter answers `dropped` only when no transfer under the key has gone out and none ever
   * will (it cancels the key at the network or custodian first, so a send still in flight is
   * refused); otherwise `completed`, `failed` or `pending`. Throws when it cannot tell.
   */
  lookup(idempotencyKey: string, merchantId: string): Promise<NetworkAnswer>;
}

export const NETWORK_ADAPTER = Symbol('NETWORK_ADAPTER');
