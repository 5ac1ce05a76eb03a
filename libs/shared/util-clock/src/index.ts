/** A service's clock port: what reads the time goes through it, so tests can move time. */
export interface Clock {
  now(): Date;
}

/** The system clock plus an offset that only tests move (through a service's test-clock endpoint). */
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

/**
 * The one injection token of a service's clock, in every service: its module provides an
 * OffsetClock under it (moved only through the test-clock endpoint when TEST_CLOCK_ENABLED).
 */
export const CLOCK = Symbol('CLOCK');
