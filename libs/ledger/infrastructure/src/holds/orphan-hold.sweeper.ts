import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CLOCK, type Clock } from '@mp/shared-util-clock';
import { PeriodicTask } from '@mp/shared-command-handling';
import { DataSource } from 'typeorm';
import { handleLedgerCommand } from '../commands/ledger.stream';
import { LEDGER_SETTINGS, type LedgerSettings } from '../ledger-settings';
import { lockLedger } from '../persistence/ledger.projection';
import { findUnattachedPayoutHolds, isStillUnattached, markHoldAttached, type UnattachedHold } from './hold-attachment';
import { PAYMENT_ORDER_DIRECTORY, WITHDRAWAL_DIRECTORY, type PaymentOrderDirectory } from './payment-order-directory.port';

const BATCH = 50;

export interface SweepOutcome {
  attached: number;
  voided: number;
  undecided: number;
}

/**
 * Returns the money of payout holds whose order never came to exist. The payments service
 * places a hold and then commits the order; if it dies in between and the command is never
 * completed (dead-lettered, say), nothing else would ever release the hold.
 *
 * A hold is voided only when all of these hold: it is pending; the ledger never saw its order's
 * OutgoingPaymentCreated event; nobody asked for it for a whole grace period (so a create in
 * progress, whose transaction is bounded by the hold request timeout, has committed or rolled
 * back by then); and the payments service answers 404 for the order. A retry after that meets
 * the voided hold and is refused, never paid out without frozen funds.
 */
@Injectable()
export class OrphanHoldSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OrphanHoldSweeper.name);
  // One sweep at a time per replica; replicas may overlap, and the ledger lock makes that safe.
  private readonly task = new PeriodicTask(
    () => this.sweepOnce(),
    (error) => this.logger.error(`orphan-hold sweep failed: ${String(error)}`),
  );

  constructor(
    private readonly dataSource: DataSource,
    @Inject(LEDGER_SETTINGS) private readonly settings: LedgerSettings,
    @Inject(PAYMENT_ORDER_DIRECTORY) private readonly payments: PaymentOrderDirectory,
    @Inject(WITHDRAWAL_DIRECTORY) private readonly withdrawals: PaymentOrderDirectory,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(this.settings.orphanHoldSweepIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  async sweepOnce(): Promise<SweepOutcome> {
    const outcome: SweepOutcome = { attached: 0, voided: 0, undecided: 0 };
    const candidates = await findUnattachedPayoutHolds(this.dataSource.manager, this.settings.orphanHoldGraceMs, BATCH);
    for (const hold of candidates) {
      const directory = hold.reference_kind === 'withdrawal' ? this.withdrawals : this.payments;
      const exists = await directory.orderExists(hold.merchant_id, hold.reference_id);
      if (exists === 'unknown') outcome.undecided += 1;
      else if (exists) {
        // The order's event is late (a slow outbox relay): nothing is wrong, stop asking.
        await markHoldAttached(this.dataSource.manager, hold.merchant_id, hold.currency, hold.hold_id);
        outcome.attached += 1;
      } else if (await this.voidOrphan(hold)) outcome.voided += 1;
    }
    return outcome;
  }

  private async voidOrphan(hold: UnattachedHold): Promise<boolean> {
    return this.dataSource.transaction(async (manager) => {
      // The ledger lock first, as every writer takes it: a retry placing this hold right now
      // either finished (and refreshed last_requested_at) or waits until the void is done.
      await lockLedger(manager, hold.merchant_id, hold.currency);
      if (!(await isStillUnattached(manager, hold, this.settings.orphanHoldGraceMs))) return false;
      await handleLedgerCommand(
        { manager },
        hold.merchant_id,
        hold.currency,
        { type: 'VoidHold', data: { holdId: hold.hold_id }, metadata: { now: this.clock.now() } },
        { id: `orphan-hold-sweep:${hold.hold_id}`, correlationId: `orphan-hold-sweep:${hold.hold_id}` },
      );
      this.logger.warn(
        `voided orphaned hold ${hold.hold_id} of ${hold.merchant_id}/${hold.currency}: ${hold.reference_kind === 'withdrawal' ? 'withdrawals has no withdrawal' : 'payments has no order'} ${hold.reference_id}`,
      );
      return true;
    });
  }
}
