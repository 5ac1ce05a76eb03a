import type { Decider, EventSchemas } from '@mp/shared-decider';
import { DomainError, validationError } from '@mp/shared-util-errors';
import { formatAmountMinor } from '@mp/shared-util-money';
import { findWithdrawalAsset, type WalletNetwork, type WithdrawalAsset } from './assets';
import { checkWalletAddress } from './wallet-address';

/**
 * The withdrawal aggregate (decisions.md "States": PENDING → COMPLETED | FAILED). One stream per
 * (merchant, withdrawal order_id). The funds are frozen by a ledger hold placed before the
 * withdrawal exists; the sender moves it along in the background through a persisted state
 * machine (queued → sending → COMPLETED/FAILED), so a crash between "about to send" and "sent"
 * is resumed, and the network adapter is always called with the same idempotency key.
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
  createdAt: string;
  updatedAt: string;
}

export type Withdrawal = { status: 'NotRequested' } | ExistingWithdrawal;

export const initialWithdrawal = (): Withdrawal => ({ status: 'NotRequested' });

////////// Commands

interface CommandMetadata {
  now: Date;
}

export interface RequestWithdrawal {
  type: 'RequestWithdrawal';
  data: { merchantId: string; orderId: string; currency: string; amountMinor: bigint; address: string };
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

export interface FailWithdrawal {
  type: 'FailWithdrawal';
  data: { reason: string; resolvedBy: 'network' | 'operator' };
  metadata: CommandMetadata;
}

export type WithdrawalCommand = RequestWithdrawal | StartSendingWithdrawal | CompleteWithdrawal | FailWithdrawal;

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
  };
}

export interface WithdrawalSendingStarted {
  type: 'WithdrawalSendingStarted';
  data: { attempt: number; occurredAt: string };
}

export interface WithdrawalCompleted {
  type: 'WithdrawalCompleted';
  data: { transactionHash: string; resolvedBy: 'network' | 'operator'; reason: string | null; occurredAt: string };
}

export interface WithdrawalFailed {
  type: 'WithdrawalFailed';
  data: { reason: string; resolvedBy: 'network' | 'operator'; occurredAt: string };
}

export type WithdrawalEvent = WithdrawalRequested | WithdrawalSendingStarted | WithdrawalCompleted | WithdrawalFailed;

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
      if (withdrawal.status === 'COMPLETED' && withdrawal.transactionHash === command.data.transactionHash) return [];
      assertPending(withdrawal);
      const occurredAt = command.metadata.now.toISOString();
      return [{ type: 'WithdrawalCompleted', data: { transactionHash: command.data.transactionHash, resolvedBy: command.data.resolvedBy, reason: command.data.reason ?? null, occurredAt } }];
    }
    case 'FailWithdrawal': {
      const withdrawal = existing(state);
      if (withdrawal.status === 'FAILED') return [];
      assertPending(withdrawal);
      return [{ type: 'WithdrawalFailed', data: { reason: command.data.reason, resolvedBy: command.data.resolvedBy, occurredAt: command.metadata.now.toISOString() } }];
    }
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
    if (same) return [];
    throw new DomainError('DUPLICATE_ORDER', `order_id ${data.orderId} is already used by another withdrawal`, [
      { field: 'order_id', issue: 'already used with a different amount, currency or address' },
    ]);
  }
  const asset = findWithdrawalAsset(metadata.assets, data.currency);
  if (!asset) {
    throw validationError([{ field: 'currency', issue: `${data.currency} is not an asset we send; the methods endpoint lists them with direction "withdrawal"` }]);
  }
  if (data.amountMinor < asset.minAmountMinor) {
    throw validationError([{ field: 'amount', issue: `is below the minimum of ${formatAmountMinor(asset.minAmountMinor, asset.balanceAsset)} ${asset.code}` }]);
  }
  const address = checkWalletAddress(asset.network, data.address);
  if (!address.valid) {
    const detected = address.detectedNetwork ? { detected_network: address.detectedNetwork } : undefined;
    throw new DomainError('INVALID_ADDRESS', `The address is not a valid ${asset.network} address for ${asset.code}`, [{ field: 'address', issue: address.issue }], detected);
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
      },
    },
  ];
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
        createdAt: data.occurredAt,
        updatedAt: data.occurredAt,
      };
    }
    case 'WithdrawalSendingStarted':
      return { ...existingForEvolve(state), sendProgress: 'sending', sendAttempts: event.data.attempt, updatedAt: event.data.occurredAt };
    case 'WithdrawalCompleted':
      return { ...existingForEvolve(state), status: 'COMPLETED', sendProgress: 'finished', transactionHash: event.data.transactionHash, updatedAt: event.data.occurredAt };
    case 'WithdrawalFailed':
      return { ...existingForEvolve(state), status: 'FAILED', sendProgress: 'finished', failureReason: event.data.reason, updatedAt: event.data.occurredAt };
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
export const withdrawalDecider: Decider<Withdrawal, WithdrawalCommand, WithdrawalEvent> = { decide: decideWithdrawal, evolve: evolveWithdrawal, initialState: initialWithdrawal };

/** The stored version of each event type; a payload change adds a version and an upcaster. */
export const WITHDRAWAL_EVENT_SCHEMAS: EventSchemas<WithdrawalEvent> = {
  WithdrawalRequested: { version: 1 },
  WithdrawalSendingStarted: { version: 1 },
  WithdrawalCompleted: { version: 1 },
  WithdrawalFailed: { version: 1 },
};

/** Deterministic stream id: retries of one order_id always land on the same stream. */
export const toWithdrawalStreamId = (merchantId: string, orderId: string): string => `withdrawal:${merchantId}:${orderId}`;
