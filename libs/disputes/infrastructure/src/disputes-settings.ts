import { OffsetClock, type Clock } from '@mp/shared-util-clock';

/** What the disputes module needs from its app's validated config. */
export interface DisputesSettings {
  commandPartitions: number;
  /** Tests only: lets POST /internal/test/clock move the service's clock forward. */
  testClockEnabled: boolean;
}

export const DISPUTES_SETTINGS = Symbol('DISPUTES_SETTINGS');

export const DISPUTES_CLOCK = Symbol('DISPUTES_CLOCK');

/** The clock port and its test-movable implementation are shared by the services. */
export { OffsetClock, type Clock };
