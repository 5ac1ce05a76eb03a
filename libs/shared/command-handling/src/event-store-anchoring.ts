import { Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { anchorClosedDays } from '@mp/shared-messaging';
import { DataSource } from 'typeorm';
import { PeriodicTask } from './periodic-task';

/** How often a replica looks for a closed day to anchor: a day is anchored within this of ANCHOR_SETTLE_MS after midnight UTC. */
const ANCHOR_INTERVAL_MS = 10 * 60_000;

/**
 * Makes the daily anchors of the service's event store (docs/decisions/event-hash-chain.md):
 * at start and every ten minutes, each closed UTC day not anchored yet. Every replica runs it;
 * the anchoring's advisory lock makes one do each day. A provider of each service with an event
 * store.
 */
@Injectable()
export class EventStoreAnchoring implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(EventStoreAnchoring.name);
  private readonly failed = (error: unknown) => this.logger.error(`event store anchoring failed: ${String(error)}`);
  private readonly task = new PeriodicTask(() => this.anchorNow(), this.failed);

  constructor(private readonly dataSource: DataSource) {}

  onApplicationBootstrap(): void {
    this.task.start(ANCHOR_INTERVAL_MS);
    void this.task.runNow().catch(this.failed);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.task.stop();
  }

  /** Anchors the closed days not anchored yet; returns them. */
  async anchorNow(now = new Date()): Promise<string[]> {
    const days = await anchorClosedDays(this.dataSource.manager, now);
    if (days.length > 0) this.logger.log(`anchored the event store for ${days.join(', ')}`);
    return days;
  }
}
