import { randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { StreamVersionConflictError } from '@mp/shared-messaging';
import { DataSource } from 'typeorm';
import { CLOCK, PAYMENTS_SETTINGS, type Clock, type PaymentsSettings } from '../payments-settings';
import { PaymentOrderExecutor } from './payment-order.executor';

const BATCH_SIZE = 100;

/**
 * Expires unfinished orders whose time is up, by the service's clock. Each order is expired
 * by its own command, so the decider's rules apply (an order the payer reported paid waits
 * for its agent). Several replicas may sweep at once: the stream version lets one win.
 */
@Injectable()
export class ExpirySweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ExpirySweeper.name);
  private timer: NodeJS.Timeout | null = null;
  private sweeping: Promise<number> | null = null;

  constructor(
    private readonly dataSource: DataSource,
    private readonly executor: PaymentOrderExecutor,
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => void this.sweep().catch((error) => this.logger.warn(`expiry sweep failed: ${String(error)}`)), this.settings.expirySweepIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.sweeping;
  }

  /** Expires what is due now; returns how many orders expired. One sweep at a time per process. */
  sweep(): Promise<number> {
    this.sweeping ??= this.sweepOnce().finally(() => (this.sweeping = null));
    return this.sweeping;
  }

  private async sweepOnce(): Promise<number> {
    const now = this.clock.now();
    const due: Array<{ merchant_id: string; order_id: string }> = await this.dataSource.query(
      `SELECT merchant_id, order_id FROM payment_orders WHERE status = 'PENDING' AND expires_at <= $1 ORDER BY expires_at LIMIT $2`,
      [now, BATCH_SIZE],
    );
    let expired = 0;
    for (const order of due) {
      try {
        const result = await this.dataSource.transaction((manager) =>
          this.executor.execute(manager, order.merchant_id, order.order_id, { type: 'ExpirePaymentOrder', metadata: { now } }, { id: randomUUID(), correlationId: `expiry-${now.toISOString()}` }),
        );
        if (result.events.length > 0) expired += 1;
      } catch (error) {
        if (!(error instanceof StreamVersionConflictError)) throw error;
      }
    }
    return expired;
  }
}
