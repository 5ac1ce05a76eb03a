/** What the disputes module needs from its app's validated config. */
export interface DisputesSettings {
  commandPartitions: number;
  /** Tests only: lets POST /internal/test/clock move the service's clock forward. */
  testClockEnabled: boolean;
}

export const DISPUTES_SETTINGS = Symbol('DISPUTES_SETTINGS');

/** The service's clock port: the one-month window is measured on it, so tests can move time. */
export interface Clock {
  now(): Date;
}

export const DISPUTES_CLOCK = Symbol('DISPUTES_CLOCK');

/** The system clock plus an offset that only tests move (through the test-clock endpoint). */
export class OffsetClock implements Clock {
  private offsetMs = 0;

  now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }

  advance(milliseconds: number): void {
    if (!Number.isSafeInteger(milliseconds) || milliseconds < 0) throw new Error('the clock only moves forward');
    this.offsetMs += milliseconds;
  }
}
