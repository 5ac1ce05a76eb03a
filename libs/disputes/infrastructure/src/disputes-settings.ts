import { OffsetClock, type Clock } from '@mp/shared-util-clock';

/** What the disputes module needs from its app's validated config. */
export interface DisputesSettings {
  commandPartitions: number;
  /** Tests only: lets POST /internal/test/clock move the service's clock forward. */
  testClockEnabled: boolean;
  /**
   * How long a stored receipt may wait for the open that names it before the sweep deletes it.
   * Far longer than the gateway waits for an open (GATEWAY_COMMAND_TIMEOUT_MS): an open that
   * arrives later still finds its receipt unless disputes was down for longer than this.
   */
  receiptOrphanGraceMs: number;
  receiptSweepIntervalMs: number;
  /** DISPUTE_REVIEW_WINDOW_HOURS: how long after an open or reopen a review is due (the dispute's `review_deadline`). */
  reviewWindowHours: number;
}

export const DISPUTES_SETTINGS = Symbol('DISPUTES_SETTINGS');

/** The clock port, its one token and its test-movable implementation are shared by the services. */
export { CLOCK } from '@mp/shared-util-clock';
export { OffsetClock, type Clock };
