import { createHash } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from '../withdrawals-settings';
import { isTestMerchantId } from '@mp/shared-util-validation';
import { SANDBOX_WITHDRAWAL_FAILURE_REASON, sandboxWithdrawalFails, type NetworkAnswer } from '@mp/withdrawals-domain';
import type { NetworkAdapter, NetworkSendRequest, NetworkSendResult } from './network-adapter.port';

type SendRow = { outcome: 'completed' | 'failed' | 'dropped'; transaction_hash: string | null; failure_reason: string | null };

const DROPPED_REASON = 'the network dropped the transfer: it was never sent, and the key is refused from now on';

/**
 * The default network adapter (docs/api/states.md "What moves an order"): a simulated network
 * with a configurable delay and outcome, so the whole flow runs locally. The transaction hash
 * is deterministic (sha256 of the idempotency key), and the simulator remembers every key it
 * has seen in its own table: a resend with a known key returns the first result and counts the
 * request, never a second send. A lookup of a key it has not seen claims the key as
 * `dropped` in the same table, so a send that was still on its way (the delay) finds the key
 * taken and is refused: the simulator's way of keeping the port's `dropped` promise. A test-mode
 * merchant's withdrawal of a magic amount fails (sandboxWithdrawalFails, docs/api/sandbox.md).
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
    const sandboxFails = isTestMerchantId(request.merchantId) && sandboxWithdrawalFails(request.amountMinor);
    const fails = sandboxFails || outcome === 'fail' || (failAddressPattern !== null && failAddressPattern.test(request.address));
    const transactionHash = fails ? null : createHash('sha256').update(request.idempotencyKey).digest('hex');
    const reason = sandboxFails ? SANDBOX_WITHDRAWAL_FAILURE_REASON : fails ? 'the simulated network rejected the transfer' : null;
    // ON CONFLICT keeps the first row's outcome: a resend with the same key is answered from memory.
    const [row]: SendRow[] = await this.dataSource.query(
      `INSERT INTO simulated_network_sends (idempotency_key, network, address, amount_minor, outcome, transaction_hash, failure_reason)
       VALUES ($1, $2, $3, $4::numeric, $5, $6, $7)
       ON CONFLICT (idempotency_key) DO UPDATE SET requests = simulated_network_sends.requests + 1
       RETURNING outcome, transaction_hash, failure_reason`,
      [request.idempotencyKey, request.network, request.address, request.amountMinor.toString(), fails ? 'failed' : 'completed', transactionHash, reason],
    );
    return row.outcome === 'completed'
      ? { outcome: 'completed', transactionHash: row.transaction_hash ?? '' }
      : { outcome: 'failed', reason: row.failure_reason ?? 'failed' };
  }

  async lookup(idempotencyKey: string): Promise<NetworkAnswer> {
    // Inserting first makes "not seen yet" and "dropped" one atomic step against a concurrent send.
    const [answered]: SendRow[] = await this.dataSource.query(
      `WITH dropped AS (
         INSERT INTO simulated_network_sends (idempotency_key, outcome, failure_reason) VALUES ($1, 'dropped', $2)
         ON CONFLICT (idempotency_key) DO NOTHING
         RETURNING outcome, transaction_hash, failure_reason)
       SELECT outcome, transaction_hash, failure_reason FROM dropped
       UNION ALL
       SELECT outcome, transaction_hash, failure_reason FROM simulated_network_sends WHERE idempotency_key = $1`,
      [idempotencyKey, DROPPED_REASON],
    );
    // A send committed while this statement waited on its key is not in the statement's snapshot: read it now.
    const row =
      answered ??
      (
        (await this.dataSource.query(`SELECT outcome, transaction_hash, failure_reason FROM simulated_network_sends WHERE idempotency_key = $1`, [
          idempotencyKey,
        ])) as SendRow[]
      )[0];
    if (row.outcome === 'completed') return { status: 'completed', transactionHash: row.transaction_hash ?? '' };
    return { status: row.outcome, reason: row.failure_reason ?? row.outcome };
  }
}
