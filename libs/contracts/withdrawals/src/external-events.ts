import { IsIsoDateTime, IsJsonObject, IsKnownCurrency, IsMinorUnits, IsNonEmptyString, IsStreamVersion } from '@mp/shared-util-validation';
import type { WithdrawalView } from './withdrawal-view';

/**
 * External events of the withdrawals context on `WITHDRAWALS_TOPICS.events`: what the ledger
 * and the callback dispatcher may rely on. Mapped explicitly from the service's internal
 * events, which never leave its database. They carry no secret (a withdrawal has none) and
 * change only with a schema version.
 *
 * - `WithdrawalRequested`: the withdrawal exists; the ledger attaches its hold (the orphan-hold
 *   sweep leaves it be);
 * - `WithdrawalCompleted`: sent, with the transaction hash; the ledger posts the hold
 *   (callback `withdrawal.completed`);
 * - `WithdrawalFailed`: nothing was sent; the ledger voids the hold and the money is available
 *   again (callback `withdrawal.failed`).
 * Progress of the sender (`sending`) is internal and not published.
 */
export const WITHDRAWAL_EXTERNAL_EVENT_TYPES = {
  requested: 'WithdrawalRequested',
  completed: 'WithdrawalCompleted',
  failed: 'WithdrawalFailed',
} as const;

export type WithdrawalExternalEventType = (typeof WITHDRAWAL_EXTERNAL_EVENT_TYPES)[keyof typeof WITHDRAWAL_EXTERNAL_EVENT_TYPES];

/** Bumped only on a breaking change; consumers upcast older versions. */
export const WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION = 1;

export interface WithdrawalExternalEventData {
  merchantId: string;
  orderId: string;
  /** The ledger hold of this withdrawal (`withdrawalHoldId`). */
  holdId: string;
  /** The settlement balance it draws on, e.g. `USDT` for `USDT-TRC20`: the ledger's currency. */
  balanceAsset: string;
  amountMinor: string;
  networkFeeMinor: string;
  /** Position of the withdrawal's stream after this change: receivers drop anything older. */
  version: number;
  occurredAt: string;
  /** The merchant-facing state object at this version (the callback body's `data`). */
  withdrawal: WithdrawalView;
}

/** What the ledger and the callback dispatcher check a withdrawal event against (WITHDRAWAL_EXTERNAL_EVENT_CONTRACT); the snapshot passes as an object. */
export class WithdrawalExternalEventPayload {
  @IsNonEmptyString()
  merchantId!: string;

  @IsNonEmptyString()
  orderId!: string;

  @IsNonEmptyString()
  holdId!: string;

  @IsKnownCurrency()
  balanceAsset!: string;

  @IsMinorUnits('positive', 'balanceAsset')
  amountMinor!: string;

  @IsMinorUnits('non-negative', 'balanceAsset')
  networkFeeMinor!: string;

  @IsStreamVersion()
  version!: number;

  @IsIsoDateTime()
  occurredAt!: string;

  @IsJsonObject()
  withdrawal!: WithdrawalView;
}

/** The withdrawal events' payload classes by type, for the intakes that read them (`readEventPayload`). */
export const WITHDRAWAL_EXTERNAL_EVENT_CONTRACT = {
  schemaVersion: WITHDRAWAL_EXTERNAL_EVENT_SCHEMA_VERSION,
  payloads: Object.fromEntries(Object.values(WITHDRAWAL_EXTERNAL_EVENT_TYPES).map((type) => [type, WithdrawalExternalEventPayload])) as Record<
    WithdrawalExternalEventType,
    typeof WithdrawalExternalEventPayload
  >,
};

export interface WithdrawalExternalEvent {
  type: WithdrawalExternalEventType;
  data: WithdrawalExternalEventData;
}
