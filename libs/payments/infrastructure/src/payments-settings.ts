/** What the payments module needs from its app's validated config. */
export interface PaymentsSettings {
  /** Public base URL of the payer page (the gateway), used in `redirect_url`. */
  payerPageBaseUrl: string;
  /** Test-only fault injection: SIGKILL the process right after this command type commits, before its reply is published. */
  crashAfterCommitOf: string | null;
  commandPartitions: number;
}

export const PAYMENTS_SETTINGS = Symbol('PAYMENTS_SETTINGS');

/** The service's clock port: tests move time, production reads the system clock. */
export interface Clock {
  now(): Date;
}

export const CLOCK = Symbol('CLOCK');

export const systemClock: Clock = { now: () => new Date() };
