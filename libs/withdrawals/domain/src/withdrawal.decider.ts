import type { Decider, EventSchemas } from '@mp/shared-decider';
import { DomainError, validationError } from '@mp/shared-util-errors';
import { formatAmountMinor } from '@mp/shared-util-money';
import { sameMetadata } from '@mp/shared-util-validation';
import { findWithdrawalAsset, type WalletNetwork, type WithdrawalAsset } from './assets';
import { checkWalletAddress } from './wallet-address';

/**
 * The withdrawal aggregate (docs/api/states.md: PENDING → COMPLETED | FAILED). One stream per
 * (merchant, withdrawal order_id). The funds are frozen by a ledger hold placed before the
 * withdrawal exists; the sender moves it along in the background through a persisted state
 * machine (queued → sending → COMPLETED/FAILED), so a crash between "about to send" and "sent"
 * is resumed, and the network adapter is always called with the same idempotency key.
 *
 * The money rule: once sending started the transfer may be on the network, so nothing but the
 * network's own word may fail it (a refund while the transfer lands pays twice). An operator
 * fails only a queued withdrawal; a stuck "sending" one is reconciled: the network adapter is
 * asked about the idempotency key, and its answer, when and who asked are recorded with the
 * outcome. A network result that arrives after the withdrawal finished is recorded as a late
 * result (a dead letter), never dropped.
 */

////////// State

export type WithdrawalStatus = 'PENDING' | 'COMPLETED' | 'FAILED';
/** Where the background sender stands; merchants see only `status`. */
export type SendProgress = 'queued' | 'sending' | 'finished';

export interface ExistingWithdrawal {
  status: WithdrawalStatus;
  sendProgress: SendProgress;
  merchantId: string;
  orderId: string;
  /** The asset code merchants sent as `currency`, e.g. `USDT-TRC20`. */
  currency: string;
  network: WalletNetwork;
  balanceAsset: string;
  amountMinor: bigint;
  networkFeeMinor: bigint;
  address: string;
  transactionHash: string | null;
  failureReason: string | null;
  /** How many times sending was started; the adapter's idempotency key stays the withdrawal id. */
  sendAttempts: number;
  /** What the network said when an operator reconciled the withdrawal, if one did. */
  reconciliation: ReconciliationEvidence | null;
  /** The merchant's reference data: stored and shown, never read to decide anything (only compared on a retry). */
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

export type Withdrawal = { status: 'NotRequested' } | ExistingWithdrawal;

export const initialWithdrawal = (): Withdrawal => ({ status: 'NotRequested' });

/**
 * What the network (adapter) says about an idempotency key when asked. `dropped`: it never
 * sent under this key and never will (the adapter refuses the key from now on), so failing
 * the withdrawal cannot pay twice. `pending`: it has the transfer and has not decided yet.
 */
export type NetworkAnswer =
  { status: 'completed'; transactionHash: string } | { status: 'failed'; reason: string } | { status: 'dropped'; reason: string } | { status: 'pending' };

/** A reconciliation's evidence: the network's answer, when it was asked and by which operator. */
export interface ReconciliationEvidence {
  operatorId: string;
  idempotencyKey: string;
  askedAt: string;
  answer: NetworkAnswer;
}

/** Who decided an outcome: the sender's network call, an operator's word, or a reconciliation's network answer. */
export type ResolvedBy = 'network' | 'operator' | 'reconciliation';

////////// Commands

interface CommandMetadata {
  now: Date;
}

export interface RequestWithdrawal {
  type: 'RequestWithdrawal';
  data: { merchantId: string; orderId: string; currency: string; amountMinor: bigint; address: string; metadata?: Record<string, string> };
  metadata: CommandMetadata & { assets: readonly WithdrawalAsset[] };
}

export interface StartSendingWithdrawal {
  type: 'StartSendingWithdrawal';
  metadata: CommandMetadata;
}

export interface CompleteWithdrawal {
  type: 'CompleteWithdrawal';
  data: { transactionHash: string; resolvedBy: 'network' | 'operator'; reason?: string };
  metadata: CommandMetadata;
}

/** An operator asked the network about a stuck withdrawal; the answer decides. */
export interface ReconcileWithdrawal {
  type: 'ReconcileWithdrawal';
  data: { evidence: ReconciliationEvidence };
  metadata: CommandMetadata;
}

export interface FailWithdrawal {
  type: 'FailWithdrawal';
  data: { reason: string; resolvedBy: 'network' | 'operator' };
  metadata: CommandMetadata;
}

export type WithdrawalCommand = RequestWithdrawal | StartSendingWithdrawal | CompleteWithdrawal | FailWithdrawal | ReconcileWithdrawal;

////////// Events

export interface WithdrawalRequested {
  type: 'WithdrawalRequested';
  data: {
    merchantId: string;
    orderId: string;
    currency: string;
    network: WalletNetwork;
    balanceAsset: string;
    amountMinor: string;
    networkFeeMinor: string;
    address: string;
    occurredAt: string;
    /** Since version 2 (`{}` for withdrawals requested before). */
    metadata: Record<string, string>;
  };
}

export interface WithdrawalSendingStarted {
  type: 'WithdrawalSendingStarted';
  data: { attempt: number; occurredAt: string };
}

export interface WithdrawalCompleted {
  type: 'WithdrawalCompleted';
  data: { transactionHash: string; resolvedBy: ResolvedBy; reason: string | null; occurredAt: string };
}

export interface WithdrawalFailed {
  type: 'WithdrawalFailed';
  data: { reason: string; resolvedBy: ResolvedBy; occurredAt: string };
}

/** The evidence of a reconciliation; the outcome it decided follows it in the same append. */
export interface WithdrawalReconciled {
  type: 'WithdrawalReconciled';
  data: ReconciliationEvidence & { occurredAt: string };
}

/**
 * The sender's network call answered after the withdrawal had finished. It changes nothing
 * (the money already moved one way); it is kept so an operator sees it, above all when it
 * `contradicts` the outcome (a transfer that landed on a refunded withdrawal).
 */
export interface LateNetworkResultRecorded {
  type: 'LateNetworkResultRecorded';
  data: {
    outcome: 'completed' | 'failed';
    transactionHash: string | null;
    reason: string | null;
    statusAtArrival: 'COMPLETED' | 'FAILED';
    contradicts: boolean;
    occurredAt: string;
  };
}

export type WithdrawalEvent =
  WithdrawalRequested | WithdrawalSendingStarted | WithdrawalCompleted | WithdrawalFailed | WithdrawalReconciled | LateNetworkResultRecorded;

////////// Decide

export function decideWithdrawal(command: WithdrawalCommand, state: Withdrawal): WithdrawalEvent[] {
  switch (command.type) {
    case 'RequestWithdrawal':
      return requestWithdrawal(command, state);
    case 'StartSendingWithdrawal': {
      const withdrawal = existing(state);
      if (withdrawal.status !== 'PENDING') return [];
      return [{ type: 'WithdrawalSendingStarted', data: { attempt: withdrawal.sendAttempts + 1, occurredAt: command.metadata.now.toISOString() } }];
    }
    case 'CompleteWithdrawal': {
      const withdrawal = existing(state);
      if (command.data.resolvedBy === 'network' && withdrawal.status !== 'PENDING')
        return [lateNetworkResult(withdrawal, { outcome: 'completed', transactionHash: command.data.transactionHash }, command.metadata.now)];
      if (withdrawal.status === 'COMPLETED' && withdrawal.transactionHash === command.data.transactionHash) return [];
      assertPending(withdrawal);
      const occurredAt = command.metadata.now.toISOString();
      return [
        {
          type: 'WithdrawalCompleted',
          data: { transactionHash: command.data.transactionHash, resolvedBy: command.data.resolvedBy, reason: command.data.reason ?? null, occurredAt },
        },
      ];
    }
    case 'FailWithdrawal': {
      const withdrawal = existing(state);
      if (command.data.resolvedBy === 'network' && withdrawal.status !== 'PENDING')
        return [lateNetworkResult(withdrawal, { outcome: 'failed', reason: command.data.reason }, command.metadata.now)];
      if (withdrawal.status === 'FAILED') return [];
      assertPending(withdrawal);
      if (command.data.resolvedBy === 'operator' && withdrawal.sendProgress !== 'queued') {
        throw new DomainError(
          'ORDER_STATE_CONFLICT',
          'The withdrawal may already be on the network: failing it could refund a transfer that lands. Reconcile it instead',
          [{ field: 'send_progress', issue: `${withdrawal.sendProgress}: only the network's answer may fail it; use reconcile` }],
        );
      }
      return [
        {
          type: 'WithdrawalFailed',
          data: { reason: command.data.reason, resolvedBy: command.data.resolvedBy, occurredAt: command.metadata.now.toISOString() },
        },
      ];
    }
    case 'ReconcileWithdrawal':
      return reconcileWithdrawal(command, existing(state));
    default: {
      const unknown: never = command;
      throw new Error(`unknown withdrawal command ${JSON.stringify(unknown)}`);
    }
  }
}

function requestWithdrawal(command: RequestWithdrawal, state: Withdrawal): WithdrawalEvent[] {
  const { data, metadata } = command;
  if (state.status !== 'NotRequested') {
    // Idempotent by order_id: the same request returns the same withdrawal; anything else is a
    // different request under a used id, which must never be merged into the first.
    const same = state.currency === data.currency && state.amountMinor === data.amountMinor && state.address === data.address;
    if (!same) {
      throw new DomainError('DUPLICATE_ORDER', `order_id ${data.orderId} is already used by another withdrawal`, [
        { field: 'order_id', issue: 'already used with a different amount, currency or address' },
      ]);
    }
    // Metadata is compared as the payments orders compare it (docs/decisions/merchant-metadata.md).
    if (sameMetadata(state.metadata, data.metadata ?? {})) return [];
    throw new DomainError('DUPLICATE_ORDER', `order_id ${data.orderId} is already used by a withdrawal with different metadata`, [
      { field: 'metadata', issue: 'differs from the metadata the withdrawal was created with; read it with GET /v2/withdrawals/{order_id}' },
    ]);
  }
  const asset = findWithdrawalAsset(metadata.assets, data.currency);
  if (!asset) {
    throw validationError([
      { field: 'currency', issue: `${data.currency} is not an asset we send; the methods endpoint lists them with direction "withdrawal"` },
    ]);
  }
  if (data.amountMinor < asset.minAmountMinor) {
    throw validationError([{ field: 'amount', issue: `is below the minimum of ${formatAmountMinor(asset.minAmountMinor, asset.balanceAsset)} ${asset.code}` }]);
  }
  const address = checkWalletAddress(asset.network, data.address);
  if (!address.valid) {
    const detected = address.detectedNetwork ? { detected_network: address.detectedNetwork } : undefined;
    throw new DomainError(
      'INVALID_ADDRESS',
      `The address is not a valid ${asset.network} address for ${asset.code}`,
      [{ field: 'address', issue: address.issue }],
      detected,
    );
  }
  return [
    {
      type: 'WithdrawalRequested',
      data: {
        merchantId: data.merchantId,
        orderId: data.orderId,
        currency: asset.code,
        network: asset.network,
        balanceAsset: asset.balanceAsset,
        amountMinor: data.amountMinor.toString(),
        networkFeeMinor: asset.networkFeeMinor.toString(),
        address: data.address,
        occurredAt: metadata.now.toISOString(),
        metadata: data.metadata ?? {},
      },
    },
  ];
}

function reconcileWithdrawal(command: ReconcileWithdrawal, withdrawal: ExistingWithdrawal): WithdrawalEvent[] {
  const { evidence } = command.data;
  const { answer } = evidence;
  if (answer.status === 'pending') {
    throw new DomainError('ORDER_STATE_CONFLICT', 'The network has the transfer and has not decided yet; reconcile again later', [
      { field: 'network', issue: 'pending' },
    ]);
  }
  if (withdrawal.status !== 'PENDING') {
    // Asked again after it finished (a retried request, or the sender was quicker): fine when the network agrees.
    const agrees =
      answer.status === 'completed'
        ? withdrawal.status === 'COMPLETED' && withdrawal.transactionHash === answer.transactionHash
        : withdrawal.status === 'FAILED';
    if (agrees) return [];
    throw new DomainError('ORDER_STATE_CONFLICT', `The withdrawal is already ${withdrawal.status}, but the network says ${answer.status}`, [
      { field: 'status', issue: withdrawal.status },
    ]);
  }
  const occurredAt = command.metadata.now.toISOString();
  const reconciled: WithdrawalReconciled = { type: 'WithdrawalReconciled', data: { ...evidence, occurredAt } };
  const by = `reconciled by operator ${evidence.operatorId}`;
  if (answer.status === 'completed') {
    return [
      reconciled,
      {
        type: 'WithdrawalCompleted',
        data: {
          transactionHash: answer.transactionHash,
          resolvedBy: 'reconciliation',
          reason: `${by}: the network reports the transfer completed`,
          occurredAt,
        },
      },
    ];
  }
  return [
    reconciled,
    {
      type: 'WithdrawalFailed',
      data: { reason: `${answer.reason} (${by}: the network reports it ${answer.status})`, resolvedBy: 'reconciliation', occurredAt },
    },
  ];
}

function lateNetworkResult(
  withdrawal: ExistingWithdrawal,
  result: { outcome: 'completed'; transactionHash: string } | { outcome: 'failed'; reason: string },
  now: Date,
): LateNetworkResultRecorded {
  const statusAtArrival = withdrawal.status === 'FAILED' ? 'FAILED' : 'COMPLETED';
  const contradicts =
    result.outcome === 'completed' ? statusAtArrival === 'FAILED' || withdrawal.transactionHash !== result.transactionHash : statusAtArrival === 'COMPLETED';
  return {
    type: 'LateNetworkResultRecorded',
    data: {
      outcome: result.outcome,
      transactionHash: result.outcome === 'completed' ? result.transactionHash : null,
      reason: result.outcome === 'failed' ? result.reason : null,
      statusAtArrival,
      contradicts,
      occurredAt: now.toISOString(),
    },
  };
}

function existing(state: Withdrawal): ExistingWithdrawal {
  if (state.status === 'NotRequested') throw new DomainError('WITHDRAWAL_NOT_FOUND', 'No such withdrawal');
  return state;
}

function assertPending(withdrawal: ExistingWithdrawal): void {
  if (withdrawal.status !== 'PENDING') {
    throw new DomainError('ORDER_STATE_CONFLICT', `The withdrawal is already ${withdrawal.status}`, [{ field: 'status', issue: withdrawal.status }]);
  }
}

////////// Evolve

export function evolveWithdrawal(state: Withdrawal, event: WithdrawalEvent): Withdrawal {
  switch (event.type) {
    case 'WithdrawalRequested': {
      const { data } = event;
      return {
        status: 'PENDING',
        sendProgress: 'queued',
        merchantId: data.merchantId,
        orderId: data.orderId,
        currency: data.currency,
        network: data.network,
        balanceAsset: data.balanceAsset,
        amountMinor: BigInt(data.amountMinor),
        networkFeeMinor: BigInt(data.networkFeeMinor),
        address: data.address,
        transactionHash: null,
        failureReason: null,
        sendAttempts: 0,
        reconciliation: null,
        metadata: data.metadata,
        createdAt: data.occurredAt,
        updatedAt: data.occurredAt,
      };
    }
    case 'WithdrawalSendingStarted':
      return { ...existingForEvolve(state), sendProgress: 'sending', sendAttempts: event.data.attempt, updatedAt: event.data.occurredAt };
    case 'WithdrawalCompleted':
      return {
        ...existingForEvolve(state),
        status: 'COMPLETED',
        sendProgress: 'finished',
        transactionHash: event.data.transactionHash,
        updatedAt: event.data.occurredAt,
      };
    case 'WithdrawalFailed':
      return { ...existingForEvolve(state), status: 'FAILED', sendProgress: 'finished', failureReason: event.data.reason, updatedAt: event.data.occurredAt };
    case 'WithdrawalReconciled': {
      const { occurredAt: _occurredAt, ...evidence } = event.data;
      return { ...existingForEvolve(state), reconciliation: evidence };
    }
    case 'LateNetworkResultRecorded':
      // Recorded, not applied: the outcome stands (see the event).
      return existingForEvolve(state);
    default: {
      const unknown: never = event;
      throw new Error(`unknown withdrawal event ${JSON.stringify(unknown)}`);
    }
  }
}

function existingForEvolve(state: Withdrawal): ExistingWithdrawal {
  // An event after creation on a stream that has none is a corrupt stream: crash, do not guess.
  if (state.status === 'NotRequested') throw new Error('withdrawal event before WithdrawalRequested');
  return state;
}

/** The decider as a value, for the shared command core and the specs. */
export const withdrawalDecider: Decider<Withdrawal, WithdrawalCommand, WithdrawalEvent> = {
  decide: decideWithdrawal,
  evolve: evolveWithdrawal,
  initialState: initialWithdrawal,
};

/** The stored version of each event type; a payload change adds a version and an upcaster. */
export const WITHDRAWAL_EVENT_SCHEMAS: EventSchemas<WithdrawalEvent> = {
  // Version 2 carries the merchant's metadata; withdrawals requested before have none.
  WithdrawalRequested: { version: 2, upcasters: { 1: (data: object) => ({ ...data, metadata: {} }) } },
  WithdrawalSendingStarted: { version: 1 },
  WithdrawalCompleted: { version: 1 },
  WithdrawalFailed: { version: 1 },
  WithdrawalReconciled: { version: 1 },
  LateNetworkResultRecorded: { version: 1 },
};

/** Deterministic stream id: retries of one order_id always land on the same stream. */
export const toWithdrawalStreamId = (merchantId: string, orderId: string): string => `withdrawal:${merchantId}:${orderId}`;
