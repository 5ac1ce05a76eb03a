import { OffsetClock, type Clock } from '@mp/shared-util-clock';
import type { SecretKeyring } from '@mp/shared-util-secret-box';

/** What the payments module needs from its app's validated config. */
export interface PaymentsSettings {
  /** Public base URL of the payer page (the gateway), used in `redirect_url`. */
  payerPageBaseUrl: string;
  /** The master keys by version; keys of their own are derived from each for recipient accounts and payer-page tokens. */
  secretsKeyring: SecretKeyring;
  /** Test-only fault injection: SIGKILL the process right after this command type commits, before its reply is published. */
  crashAfterCommitOf: string | null;
  commandPartitions: number;
  /** How often due orders are looked for and expired. */
  expirySweepIntervalMs: number;
  /** Tests only: lets POST /internal/test/clock move the service's clock forward. */
  testClockEnabled: boolean;
}

export const PAYMENTS_SETTINGS = Symbol('PAYMENTS_SETTINGS');

/** The clock port, its one token and its test-movable implementation are shared by the services. */
export { CLOCK } from '@mp/shared-util-clock';
export { OffsetClock, type Clock };
