import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock } from '@mp/shared-util-clock';
import type { LedgerHolds } from '@mp/ledger-client';
import { PeriodicTask } from '@mp/shared-command-handling';
import { toWithdrawalStreamId, type WithdrawalCommand } from '@mp/withdrawals-domain';
import { DataSource } from 'typeorm';
import { handleWithdrawalCommand, LEDGER_HOLDS } from '../commands/withdrawal.stream';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from '../withdrawals-settings';
import { NETWORK_ADAPTER, type NetworkAdapter } from './network-adapter.port';

interface Claimed {
  merchant_id: string;
  order_id: string;
}

/**
 * Sends PENDING withdrawals in the background, resumably and never twice:
 * 1. claim a batch (FOR UPDATE SKIP LOCKED, then a lease), so replicas never send the same
 *    withdrawal at the same time, and a crashed replica's claim runs out for another to resume;
 * 2. persist StartSendingWithdrawal before calling the network, so a crash after this point is
 *    known to be "maybe sent";
 * 3. call the adapter keyed by the withdrawal id: a resumed send presents the same key and
 *    gets the first send's result back instead of a second transfer;
 * 4. persist the outcome (COMPLETED with the hash, or FAILED with the reason), which publishes
 *    the external event the ledger and the callback dispatcher consume. When the withdrawal
 *    finished meanwhile (an operator's reconciliation), the decider records the answer as a
 *    late network result (dead letter and counter) and this logs it as an error: never dropped.
 * Runs on the shared PeriodicTask: one round at a time per process, and shutdown waits for it.
 */
@Injectable()
export class WithdrawalSender implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(WithdrawalSender.name);
  private readonly task = new PeriodicTask(
    () => this.round(),
    (error) => this.logger.warn(`withdrawal send round failed: ${String(error)}`),
  );

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds,
    @Inject(NETWORK_ADAPTER) private readonly network: NetworkAdapter,
    @Inject(WITHDRAWALS_SETTINGS) private readonly settings: WithdrawalsSettings,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(this.settings.sendIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** A round now (or the one in progress); returns how many withdrawals reached an outcome. */
  sendDue(): Promise<number> {
    return this.task.runNow();
  }

  private async round(): Promise<number> {
    const claimed = await this.claim();
    let finished = 0;
    // A few at a time: the simulated (or real) network is slow, the database is not.
    for (let index = 0; index < claimed.length; index += this.settings.sendConcurrency) {
      const results = await Promise.allSettled(claimed.slice(index, index + this.settings.sendConcurrency).map((row) => this.sendOne(row)));
      for (const result of results) {
        if (result.status === 'fulfilled') finished += result.value ? 1 : 0;
        else this.logger.warn(`withdrawal send failed, will resume after the lease: ${String(result.reason)}`);
      }
    }
    return finished;
  }

  private claim(): Promise<Claimed[]> {
    // Wrapped in a CTE so the driver answers with the rows (a bare UPDATE answers [rows, count]).
    return this.dataSource.query(
      `WITH claimed AS (
         UPDATE withdrawals SET lease_until = now() + make_interval(secs => $1::double precision / 1000)
          WHERE (merchant_id, order_id) IN (
            SELECT merchant_id, order_id FROM withdrawals
             WHERE status = 'PENDING' AND (lease_until IS NULL OR lease_until < now())
             ORDER BY list_position LIMIT $2
             FOR UPDATE SKIP LOCKED)
          RETURNING merchant_id, order_id)
       SELECT merchant_id, order_id FROM claimed`,
      [this.settings.sendLeaseMs, Math.max(this.settings.sendConcurrency * 4, 10)],
    );
  }

  private async sendOne(row: Claimed): Promise<boolean> {
    const started = (await this.run(row, { type: 'StartSendingWithdrawal', metadata: { now: this.clock.now() } })).withdrawal;
    if (started.status !== 'PENDING') return false;
    const result = await this.network.send({
      merchantId: row.merchant_id,
      idempotencyKey: toWithdrawalStreamId(row.merchant_id, row.order_id),
      network: started.network,
      address: started.address,
      currency: started.currency,
      amountMinor: started.amountMinor,
    });
    if (this.settings.crashAfterNetworkSend) {
      this.logger.warn(`fault injection: crashing after the network accepted ${row.order_id}, before the outcome is recorded`);
      process.kill(process.pid, 'SIGKILL');
    }
    const now = this.clock.now();
    const outcome: WithdrawalCommand =
      result.outcome === 'completed'
        ? { type: 'CompleteWithdrawal', data: { transactionHash: result.transactionHash, resolvedBy: 'network' }, metadata: { now } }
        : { type: 'FailWithdrawal', data: { reason: result.reason, resolvedBy: 'network' }, metadata: { now } };
    const recorded = await this.run(row, outcome);
    const late = recorded.events.find((event) => event.type === 'LateNetworkResultRecorded');
    if (late) {
      this.logger.error(
        `late network result for withdrawal ${row.merchant_id}/${row.order_id}: the network answered ${result.outcome} after it was ${late.data.statusAtArrival}` +
          `${late.data.contradicts ? ' (CONTRADICTS the outcome: check the transfer and the merchant balance)' : ''}; recorded in withdrawal_late_network_results`,
      );
      return false;
    }
    return recorded.events.length > 0;
  }

  /**
   * Runs a command in its own transaction; a version conflict (an operator acted meanwhile)
   * decides again on the new state. Anything else goes up: the round logs it and the lease
   * hands the withdrawal to a later round, which asks the network again with the same key.
   */
  private run(row: Claimed, command: WithdrawalCommand) {
    return handleWithdrawalCommand(this.ledger, { dataSource: this.dataSource }, row.merchant_id, row.order_id, command, {
      id: randomUUID(),
      correlationId: `withdrawal-sender:${row.order_id}`,
    });
  }
}
