import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from '../withdrawals-settings';
import type { NetworkAdapter, NetworkSendRequest, NetworkSendResult } from './network-adapter.port';

/**
 * The default network adapter (decisions.md "Who moves orders along"): a simulated network
 * with a configurable delay and outcome, so the whole flow runs locally. The transaction hash
 * is deterministic (sha256 of the idempotency key), and the simulator remembers every key it
 * has seen in its own table: a resend with a known key returns the first result and counts the
 * request, never a second send.
 */
@Injectable()
export class SimulatedNetworkAdapter implements NetworkAdapter {
  constructor(
    private readonly dataSource: DataSource,
    @Inject(WITHDRAWALS_SETTINGS) private readonly settings: WithdrawalsSettings,
  ) {}

  async send(request: NetworkSendRequest): Promise<NetworkSendResult> {
    const { delayMs, outcome, failAddressPattern } = this.settings.simulator;
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    const fails = outcome === 'fail' || (failAddressPattern !== null && failAddressPattern.test(request.address));
    const transactionHash = fails ? null : createHash('sha256').update(request.idempotencyKey).digest('hex');
    const reason = fails ? 'the simulated network rejected the transfer' : null;
    // ON CONFLICT keeps the first row's outcome: a resend with the same key is answered from memory.
    const [row]: Array<{ outcome: 'completed' | 'failed'; transaction_hash: string | null; failure_reason: string | null }> = await this.dataSource.query(
      `INSERT INTO simulated_network_sends (idempotency_key, network, address, amount_minor, outcome, transaction_hash, failure_reason)
       VALUES ($1, $2, $3, $4::numeric, $5, $6, $7)
       ON CONFLICT (idempotency_key) DO UPDATE SET requests = simulated_network_sends.requests + 1
       RETURNING outcome, transaction_hash, failure_reason`,
      [request.idempotencyKey, request.network, request.address, request.amountMinor.toString(), fails ? 'failed' : 'completed', transactionHash, reason],
    );
    return row.outcome === 'completed' ? { outcome: 'completed', transactionHash: row.transaction_hash ?? '' } : { outcome: 'failed', reason: row.failure_reason ?? 'failed' };
  }
}
