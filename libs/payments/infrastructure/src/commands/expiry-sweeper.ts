import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '@mp/shared-command-handling';
import { DataSource } from 'typeorm';
import { LEDGER_HOLDS, type LedgerHolds } from '../ledger/ledger-holds.port';
import { CLOCK, PAYMENTS_SETTINGS, type Clock, type PaymentsSettings } from '../payments-settings';
import { handlePaymentOrderCommand } from './payment-order.stream';
import { SandboxAgent } from './sandbox-agent';

const BATCH_SIZE = 100;

/**
 * Expires unfinished orders whose time is up, by the service's clock. Each order is expired
 * by its own command, so the decider's rules apply (an order the payer reported paid waits
 * for its agent). Several replicas may sweep at once: the stream version lets one win, and the
 * loser's retry finds the order expired and adds nothing.
 */
@Injectable()
export class ExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExpirySweeper.name);
  private readonly task = new PeriodicTask(
    async () => {
      const expired = await this.sweepOnce();
      // The sandbox's simulated agent shares this pass: one timer per replica for both.
      await this.sandboxAgent.settleOnce();
      return expired;
    },
    (error) => this.logger.warn(`expiry sweep failed: ${String(error)}`),
  );

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LEDGER_HOLDS) private readonly ledger: LedgerHolds,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
    private readonly sandboxAgent: SandboxAgent,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(this.settings.expirySweepIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** Expires what is due now (and lets the sandbox agent act); returns how many orders expired. One sweep at a time per process. */
  sweep(): Promise<number> {
    return this.task.runNow();
  }

  private async sweepOnce(): Promise<number> {
    const now = this.clock.now();
    const due: Array<{ merchant_id: string; order_id: string }> = await this.dataSource.query(
      `SELECT merchant_id, order_id FROM payment_orders WHERE status = 'PENDING' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
      [now, BATCH_SIZE],
    );
    let expired = 0;
    for (const order of due) {
      const result = await handlePaymentOrderCommand(
        this.ledger,
        { dataSource: this.dataSource },
        order.merchant_id,
        order.order_id,
        { type: 'ExpirePaymentOrder', metadata: { now } },
        { id: randomUUID(), correlationId: `expiry-${now.toISOString()}` },
      );
      if (result.events.length > 0) expired += 1;
    }
    return expired;
  }
}
