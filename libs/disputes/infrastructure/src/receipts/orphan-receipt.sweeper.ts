import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { PeriodicTask } from '@mp/shared-command-handling';
import { DataSource } from 'typeorm';
import { DISPUTES_SETTINGS, type DisputesSettings } from '../disputes-settings';
import { deleteOrphanReceipts } from './dispute-receipts.store';

const BATCH = 500;

/**
 * Deletes receipts no open ever claimed (the gateway stored one and then gave up, or the command
 * never arrived), once older than the grace period, so failed opens cannot fill the disk.
 * On the services' PeriodicTask rather than an interval of `@nestjs/schedule`: the
 * sweepers share it because it skips a run while one is in progress and waits for that run on
 * shutdown. Replicas may sweep at once: a row is deleted by one of them, an open's lock on its
 * receipt makes the sweep wait for that open, which attaches or deletes it.
 */
@Injectable()
export class OrphanReceiptSweeper implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(OrphanReceiptSweeper.name);
  private readonly task = new PeriodicTask(
    () => this.sweepOnce(),
    (error) => this.logger.error(`orphan-receipt sweep failed: ${String(error)}`),
  );

  constructor(
    private readonly dataSource: DataSource,
    @Inject(DISPUTES_SETTINGS) private readonly settings: DisputesSettings,
  ) {}

  onApplicationBootstrap(): void {
    this.task.start(this.settings.receiptSweepIntervalMs);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** Deletes every orphan older than the grace period, a batch at a time; returns how many. */
  async sweepOnce(): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted = await deleteOrphanReceipts(this.dataSource.manager, this.settings.receiptOrphanGraceMs, BATCH);
      total += deleted;
      if (deleted < BATCH) break;
    }
    if (total > 0) this.logger.log(`deleted ${total} dispute receipt(s) no open claimed`);
    return total;
  }
}
