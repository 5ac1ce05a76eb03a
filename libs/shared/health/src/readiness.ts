import { Injectable } from '@nestjs/common';

/** Whether the process still takes work: false from the moment it starts shutting down. */
@Injectable()
export class Readiness {
  private shuttingDownSince: Date | null = null;

  markShuttingDown(): void {
    this.shuttingDownSince ??= new Date();
  }

  get shutdownStartedAt(): Date | null {
    return this.shuttingDownSince;
  }
}
