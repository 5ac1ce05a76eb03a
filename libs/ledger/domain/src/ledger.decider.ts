import type { Decider, EventSchemas } from '@mp/shared-decider';
import { DomainError } from '@mp/shared-util-errors';
import { formatAmountMinor, isKnownCurrency } from '@mp/shared-util-money';
import {
  addBalances,
  MERCHANT_ACCOUNTS,
  sumPostings,
  zeroBalances,
  type AccountBalances,
  type Posting,
  type PostingCode,
  type PostingReference,
} from './ledger-postings';
import type { LedgerCommandMetadata } from './ledger-command-metadata';
import { conversionLegOf, decideConversion, type ConversionCommand, type ConversionEvent, type ConversionLeg } from './ledger-conversions';

/**
 * One aggregate per merchant and currency: every balance check needs all of that merchant's
 * money in the currency, so the stream is the consistency boundary. Every command carries an
 * idempotency id (orderId, holdId, adjustmentId); a repeat of an applied one gives no events.
 */

////////// State

export type HoldStatus = 'pending' | 'posted' | 'voided';

/** A two-phase transfer (TigerBeetle): frozen when placed, then posted or voided, exactly once. */
export interface LedgerHold {
  status: HoldStatus;
  amountMinor: bigint;
  feeMinor: bigint;
  reference: HoldReference;
}

export type PayInCreditReason = 'payin_succeeded' | 'dispute_accepted';

export interface CreditedOrder {
  amountMinor: bigint;
  feeMinor: bigint;
  reason: PayInCreditReason;
}

export interface DepositAdjustment {
  amountMinor: bigint;
  reason: string;
  operatorId: string;
}

/**
 * Maps, not records, are keyed by caller ids: `constructor` and `__proto__` are valid order
 * ids (docs/api), and a plain object would answer for them through its prototype.
 */
export interface LedgerState {
  merchantId: string;
  currency: string;
  /** Derived from postings only; credits − debits per account. */
  balances: Readonly<AccountBalances>;
  holds: ReadonlyMap<string, LedgerHold>;
  creditedOrders: ReadonlyMap<string, CreditedOrder>;
  adjustments: ReadonlyMap<string, DepositAdjustment>;
  /** Conversion legs booked on this ledger, by conversion id (ledger-conversions.ts). */
  conversions: ReadonlyMap<string, ConversionLeg>;
}

export function initialLedgerState(merchantId: string, currency: string): LedgerState {
  if (merchantId === '') throw new Error('a ledger needs a merchant id');
  // Amounts in errors are formatted with the currency's scale; an unknown currency is a bug.
  if (!isKnownCurrency(currency)) throw new Error(`unknown ledger currency ${currency}`);
  return { merchantId, currency, balances: zeroBalances(), holds: new Map(), creditedOrders: new Map(), adjustments: new Map(), conversions: new Map() };
}

/** Deterministic stream id, so every command for a merchant's currency meets the same stream. */
export function toLedgerStreamId(merchantId: string, currency: string): string {
  return `ledger:${merchantId}:${currency}`;
}

export interface MerchantBalances {
  settlementAvailable: bigint;
  settlementFrozen: bigint;
  deposit: bigint;
}

export function balancesOf(state: LedgerState): MerchantBalances {
  return {
    settlementAvailable: state.balances.settlement_available,
    settlementFrozen: state.balances.settlement_frozen,
    deposit: state.balances.deposit,
  };
}

////////// Commands

/** A pay-in that succeeded, or a dispute accepted on it: settlement gets amount − fee, once per order. */
export interface CreditPayIn {
  type: 'CreditPayIn';
  data: { orderId: string; amountMinor: bigint; feeMinor: bigint; reason: PayInCreditReason };
  metadata: LedgerCommandMetadata;
}

export interface HoldReference {
  kind: 'payment_order' | 'withdrawal';
  id: string;
}

/**
 * Freezes amount + fee of a payout or withdrawal. holdId is the idempotency key and shares one
 * namespace per stream across payouts and withdrawals, so derive it with the kind, e.g.
 * `withdrawal:W-1`; a reused id with another reference is refused, never merged.
 */
export interface PlaceHold {
  type: 'PlaceHold';
  data: { holdId: string; amountMinor: bigint; feeMinor: bigint; reference: HoldReference };
  metadata: LedgerCommandMetadata;
}

/** The payout or withdrawal was sent: the amount leaves, the fee is earned. */
export interface PostHold {
  type: 'PostHold';
  data: { holdId: string };
  metadata: LedgerCommandMetadata;
}

/** The payout or withdrawal failed or was cancelled: amount + fee return to available. */
export interface VoidHold {
  type: 'VoidHold';
  data: { holdId: string };
  metadata: LedgerCommandMetadata;
}

/** An operator's deposit top-up (amountMinor > 0) or deduction (amountMinor < 0). */
export interface AdjustDeposit {
  type: 'AdjustDeposit';
  data: { adjustmentId: string; amountMinor: bigint; reason: string; operatorId: string };
  metadata: LedgerCommandMetadata;
}

export type LedgerCommand = CreditPayIn | PlaceHold | PostHold | VoidHold | AdjustDeposit | ConversionCommand;

////////// Events

/** Common to every event. Amounts are decimal strings: events are stored and sent as JSON. */
interface LedgerEventData {
  merchantId: string;
  currency: string;
  postings: Posting[];
  occurredAt: string;
}

export interface PayInCredited {
  type: 'PayInCredited';
  data: LedgerEventData & { orderId: string; amountMinor: string; feeMinor: string; reason: PayInCreditReason };
}

export interface HoldPlaced {
  type: 'HoldPlaced';
  data: LedgerEventData & { holdId: string; amountMinor: string; feeMinor: string; reference: HoldReference };
}

export interface HoldPosted {
  type: 'HoldPosted';
  data: LedgerEventData & { holdId: string };
}

export interface HoldVoided {
  type: 'HoldVoided';
  data: LedgerEventData & { holdId: string };
}

export interface DepositAdjusted {
  type: 'DepositAdjusted';
  /** amountMinor is signed here: "-500" is a deduction. */
  data: LedgerEventData & { adjustmentId: string; amountMinor: string; reason: string; operatorId: string };
}

export type LedgerEvent = PayInCredited | HoldPlaced | HoldPosted | HoldVoided | DepositAdjusted | ConversionEvent;

////////// Decide

export function decide(command: LedgerCommand, state: LedgerState): LedgerEvent[] {
  switch (command.type) {
    case 'CreditPayIn':
      return creditPayIn(command, state);
    case 'PlaceHold':
      return placeHold(command, state);
    case 'PostHold':
      return resolveHold(command, state, 'posted');
    case 'VoidHold':
      return resolveHold(command, state, 'voided');
    case 'AdjustDeposit':
      return adjustDeposit(command, state);
    case 'DebitConversion':
    case 'CreditConversion':
      return decideConversion(command, state);
    default: {
      const unknownCommand: never = command;
      throw new Error(`unknown command ${String((unknownCommand as { type: unknown }).type)}`);
    }
  }
}

const CREDIT_CODES: Record<PayInCreditReason, { settled: PostingCode; fee: PostingCode }> = {
  payin_succeeded: { settled: 'PAYIN_SETTLED', fee: 'PAYIN_FEE' },
  dispute_accepted: { settled: 'DISPUTE_SETTLED', fee: 'DISPUTE_FEE' },
};

function creditPayIn(command: CreditPayIn, state: LedgerState): LedgerEvent[] {
  const { orderId, amountMinor, feeMinor, reason } = command.data;
  assertAmountsFromService(amountMinor, feeMinor, orderId);
  if (feeMinor > amountMinor) throw new Error(`order ${orderId}: fee ${feeMinor} exceeds amount ${amountMinor}`);

  const credited = state.creditedOrders.get(orderId);
  if (credited) {
    // An order is credited once, whatever the reason: a redelivered pay-in, or a dispute
    // accepted on an order that already settled, changes nothing. A redelivery that disagrees
    // with what was booked is a conflict to investigate, not something to ignore.
    const sameCredit = credited.amountMinor === amountMinor && credited.feeMinor === feeMinor;
    if (credited.reason === reason && !sameCredit) {
      throw new DomainError('VALIDATION_ERROR', `order ${orderId} was already credited with other amounts`, [
        { field: 'order_id', issue: `already credited ${describeAmounts(credited, state.currency)}` },
      ]);
    }
    return [];
  }

  const reference: PostingReference = { kind: 'payment_order', id: orderId };
  const codes = CREDIT_CODES[reason];
  const postings = nonZeroPostings([
    {
      postingId: `payin:${orderId}:settled`,
      debitAccount: 'clearing',
      creditAccount: 'settlement_available',
      amountMinor: amountMinor - feeMinor,
      code: codes.settled,
      reference,
    },
    { postingId: `payin:${orderId}:fee`, debitAccount: 'clearing', creditAccount: 'fee_revenue', amountMinor: feeMinor, code: codes.fee, reference },
  ]);
  const data = { ...eventBase(state, command.metadata, postings), orderId, amountMinor: amountMinor.toString(), feeMinor: feeMinor.toString(), reason };
  return [{ type: 'PayInCredited', data }];
}

function placeHold(command: PlaceHold, state: LedgerState): LedgerEvent[] {
  const { holdId, amountMinor, feeMinor, reference } = command.data;
  assertAmountsFromService(amountMinor, feeMinor, holdId);

  const existing = state.holds.get(holdId);
  if (existing) {
    // Checked before funds: a retry of a placed hold succeeds even if money has moved since.
    if (isSameHold(existing, command.data)) return [];
    throw new DomainError('VALIDATION_ERROR', `hold ${holdId} already exists with other parameters`, [
      { field: 'hold_id', issue: `already used for ${existing.reference.kind} ${existing.reference.id}, ${describeAmounts(existing, state.currency)}` },
    ]);
  }

  const holdReference: HoldReference = { kind: reference.kind, id: reference.id };
  const totalMinor = amountMinor + feeMinor;
  const availableMinor = state.balances.settlement_available;
  if (availableMinor < totalMinor) {
    const format = (value: bigint) => `${formatAmountMinor(value, state.currency)} ${state.currency}`;
    throw new DomainError('INSUFFICIENT_FUNDS', 'The available settlement balance does not cover the amount plus the fee', [
      { field: 'amount', issue: `amount ${format(amountMinor)} plus fee ${format(feeMinor)} exceeds the available ${format(availableMinor)}` },
    ]);
  }

  const postings: Posting[] = [
    {
      postingId: `hold:${holdId}:placed`,
      debitAccount: 'settlement_available',
      creditAccount: 'settlement_frozen',
      amountMinor: totalMinor.toString(),
      code: 'HOLD_PLACED',
      reference: holdReference,
    },
  ];
  const data = {
    ...eventBase(state, command.metadata, postings),
    holdId,
    amountMinor: amountMinor.toString(),
    feeMinor: feeMinor.toString(),
    reference: holdReference,
  };
  return [{ type: 'HoldPlaced', data }];
}

function resolveHold(command: PostHold | VoidHold, state: LedgerState, resolution: 'posted' | 'voided'): LedgerEvent[] {
  const { holdId } = command.data;
  const hold = state.holds.get(holdId);
  if (!hold) {
    throw new DomainError('NOT_FOUND', `hold ${holdId} does not exist`, [{ field: 'hold_id', issue: 'no hold with this id in this ledger' }]);
  }
  // A hold resolves exactly once: the same resolution again is a retry, the other one a conflict.
  if (hold.status === resolution) return [];
  if (hold.status !== 'pending') {
    throw new DomainError('VALIDATION_ERROR', `hold already ${hold.status}`, [
      { field: 'hold_id', issue: `already ${hold.status}, so it cannot be ${resolution}` },
    ]);
  }

  if (resolution === 'posted') return [{ type: 'HoldPosted', data: { ...eventBase(state, command.metadata, postedHoldPostings(holdId, hold)), holdId } }];
  return [{ type: 'HoldVoided', data: { ...eventBase(state, command.metadata, voidedHoldPostings(holdId, hold)), holdId } }];
}

function postedHoldPostings(holdId: string, hold: LedgerHold): Posting[] {
  return nonZeroPostings([
    {
      postingId: `hold:${holdId}:posted`,
      debitAccount: 'settlement_frozen',
      creditAccount: 'clearing',
      amountMinor: hold.amountMinor,
      code: 'HOLD_POSTED',
      reference: hold.reference,
    },
    {
      postingId: `hold:${holdId}:fee`,
      debitAccount: 'settlement_frozen',
      creditAccount: 'fee_revenue',
      amountMinor: hold.feeMinor,
      code: 'HOLD_FEE',
      reference: hold.reference,
    },
  ]);
}

function voidedHoldPostings(holdId: string, hold: LedgerHold): Posting[] {
  const totalMinor = hold.amountMinor + hold.feeMinor;
  return nonZeroPostings([
    {
      postingId: `hold:${holdId}:voided`,
      debitAccount: 'settlement_frozen',
      creditAccount: 'settlement_available',
      amountMinor: totalMinor,
      code: 'HOLD_VOIDED',
      reference: hold.reference,
    },
  ]);
}

function adjustDeposit(command: AdjustDeposit, state: LedgerState): LedgerEvent[] {
  const { adjustmentId, amountMinor, reason, operatorId } = command.data;
  assertValidAdjustment(command.data);

  const existing = state.adjustments.get(adjustmentId);
  if (existing) {
    if (existing.amountMinor === amountMinor && existing.reason === reason && existing.operatorId === operatorId) return [];
    throw new DomainError('VALIDATION_ERROR', `adjustment ${adjustmentId} already exists with other parameters`, [
      {
        field: 'adjustment_id',
        issue: `already used for ${formatAmountMinor(existing.amountMinor, state.currency)} ${state.currency} by ${existing.operatorId}`,
      },
    ]);
  }

  const depositMinor = state.balances.deposit;
  if (depositMinor + amountMinor < 0n) {
    throw new DomainError('INSUFFICIENT_FUNDS', 'The deposit does not cover the deduction', [
      {
        field: 'amount',
        issue: `deducting ${formatAmountMinor(-amountMinor, state.currency)} ${state.currency} exceeds the deposit of ${formatAmountMinor(depositMinor, state.currency)}`,
      },
    ]);
  }

  const reference: PostingReference = { kind: 'deposit_adjustment', id: adjustmentId };
  const postingId = `deposit:${adjustmentId}`;
  const posting: Posting =
    amountMinor > 0n
      ? { postingId, debitAccount: 'clearing', creditAccount: 'deposit', amountMinor: amountMinor.toString(), code: 'DEPOSIT_TOP_UP', reference }
      : { postingId, debitAccount: 'deposit', creditAccount: 'clearing', amountMinor: (-amountMinor).toString(), code: 'DEPOSIT_ADJUSTMENT', reference };
  const data = { ...eventBase(state, command.metadata, [posting]), adjustmentId, amountMinor: amountMinor.toString(), reason, operatorId };
  return [{ type: 'DepositAdjusted', data }];
}

/** Operator input, so these are business errors with details, unlike the service-fed amounts above. */
function assertValidAdjustment(data: AdjustDeposit['data']): void {
  const details = [
    ...(data.amountMinor === 0n ? [{ field: 'amount', issue: 'must not be zero' }] : []),
    ...(data.reason.trim() === '' ? [{ field: 'reason', issue: 'must say why the deposit changes' }] : []),
    ...(data.operatorId.trim() === '' ? [{ field: 'operator_id', issue: 'must name the operator' }] : []),
    ...(data.adjustmentId === '' ? [{ field: 'adjustment_id', issue: 'must not be empty' }] : []),
  ];
  if (details.length > 0) throw new DomainError('VALIDATION_ERROR', 'The deposit adjustment is not valid', details);
}

/** Pay-ins and holds come from other services that validated them: a bad amount is a bug there. */
function assertAmountsFromService(amountMinor: bigint, feeMinor: bigint, id: string): void {
  if (id === '') throw new Error('an empty idempotency id');
  if (amountMinor <= 0n) throw new Error(`${id}: amount ${amountMinor} is not positive`);
  if (feeMinor < 0n) throw new Error(`${id}: fee ${feeMinor} is negative`);
}

function isSameHold(hold: LedgerHold, data: PlaceHold['data']): boolean {
  return (
    hold.amountMinor === data.amountMinor &&
    hold.feeMinor === data.feeMinor &&
    hold.reference.kind === data.reference.kind &&
    hold.reference.id === data.reference.id
  );
}

function describeAmounts(amounts: { amountMinor: bigint; feeMinor: bigint }, currency: string): string {
  return `amount ${formatAmountMinor(amounts.amountMinor, currency)} ${currency}, fee ${formatAmountMinor(amounts.feeMinor, currency)} ${currency}`;
}

/** A posting must move a positive amount, so a zero fee (or a pay-in wholly taken by its fee) has no posting. */
function nonZeroPostings(candidates: Array<Omit<Posting, 'amountMinor'> & { amountMinor: bigint }>): Posting[] {
  return candidates.filter((candidate) => candidate.amountMinor > 0n).map((candidate) => ({ ...candidate, amountMinor: candidate.amountMinor.toString() }));
}

function eventBase(state: LedgerState, metadata: LedgerCommandMetadata, postings: Posting[]): LedgerEventData {
  return { merchantId: state.merchantId, currency: state.currency, postings, occurredAt: metadata.now.toISOString() };
}

////////// Evolve

/**
 * Balances come from the postings alone, whatever the event type, so the books and the
 * balances cannot disagree; the rest of the state is bookkeeping for idempotency and holds.
 * Pure: it copies the one map an event changes, so a state someone still holds never changes
 * under them. States the service decides on hold only the entries their command reads (see
 * `entriesReadBy`), so that copy is small; `foldLedger` replays whole histories without it.
 */
export function evolve(state: LedgerState, event: LedgerEvent): LedgerState {
  return evolveWith(state, event, copyOnWrite);
}

/** How an entry is written into one of the state's maps. */
type EntryWriter = <Value>(entries: ReadonlyMap<string, Value>, id: string, value: Value) => ReadonlyMap<string, Value>;

/** Copies on write so a state someone still holds never changes under them. */
const copyOnWrite: EntryWriter = (entries, id, value) => new Map(entries).set(id, value);

function evolveWith(state: LedgerState, event: LedgerEvent, write: EntryWriter): LedgerState {
  if (event.data.merchantId !== state.merchantId || event.data.currency !== state.currency) {
    throw new Error(`${event.type} of ${event.data.merchantId}/${event.data.currency} applied to the ledger of ${state.merchantId}/${state.currency}`);
  }
  const bookkept = applyBookkeeping(state, event, write);
  const balances = addBalances(state.balances, sumPostings(event.data.postings));
  assertMerchantBalancesNonNegative(balances, event);
  return { ...bookkept, balances };
}

function applyBookkeeping(state: LedgerState, event: LedgerEvent, write: EntryWriter): LedgerState {
  switch (event.type) {
    case 'PayInCredited': {
      const { orderId, amountMinor, feeMinor, reason } = event.data;
      assertAbsent(state.creditedOrders, orderId, event);
      return { ...state, creditedOrders: write(state.creditedOrders, orderId, { amountMinor: BigInt(amountMinor), feeMinor: BigInt(feeMinor), reason }) };
    }
    case 'HoldPlaced': {
      const { holdId, amountMinor, feeMinor, reference } = event.data;
      assertAbsent(state.holds, holdId, event);
      const hold: LedgerHold = {
        status: 'pending',
        amountMinor: BigInt(amountMinor),
        feeMinor: BigInt(feeMinor),
        reference: { kind: reference.kind, id: reference.id },
      };
      return { ...state, holds: write(state.holds, holdId, hold) };
    }
    case 'HoldPosted':
      return { ...state, holds: withResolvedHold(state.holds, event.data.holdId, 'posted', write) };
    case 'HoldVoided':
      return { ...state, holds: withResolvedHold(state.holds, event.data.holdId, 'voided', write) };
    case 'DepositAdjusted': {
      const { adjustmentId, amountMinor, reason, operatorId } = event.data;
      assertAbsent(state.adjustments, adjustmentId, event);
      return { ...state, adjustments: write(state.adjustments, adjustmentId, { amountMinor: BigInt(amountMinor), reason, operatorId }) };
    }
    case 'ConversionDebited':
    case 'ConversionCredited':
      assertAbsent(state.conversions, event.data.conversionId, event);
      return { ...state, conversions: write(state.conversions, event.data.conversionId, conversionLegOf(event)) };
    default: {
      const unknownEvent: never = event;
      throw new Error(`unknown event ${String((unknownEvent as { type: unknown }).type)}`);
    }
  }
}

function withResolvedHold(
  holds: ReadonlyMap<string, LedgerHold>,
  holdId: string,
  status: 'posted' | 'voided',
  write: EntryWriter,
): ReadonlyMap<string, LedgerHold> {
  const hold = holds.get(holdId);
  if (!hold || hold.status !== 'pending') throw new Error(`hold ${holdId} resolved as ${status} while ${hold ? hold.status : 'missing'}`);
  return write(holds, holdId, { ...hold, status });
}

function assertMerchantBalancesNonNegative(balances: Readonly<AccountBalances>, event: LedgerEvent): void {
  for (const account of MERCHANT_ACCOUNTS) {
    if (balances[account] < 0n) throw new Error(`${event.type} would make ${account} negative (${balances[account]})`);
  }
}

function assertAbsent(entries: ReadonlyMap<string, unknown>, id: string, event: LedgerEvent): void {
  if (entries.has(id)) throw new Error(`${event.type} repeats ${id}, which decide never emits twice`);
}

/**
 * A whole history from the start, in linear time: the fold owns the maps it builds and no one
 * sees its intermediate states, so it writes into them in place (copying at every event made
 * a replay quadratic: seconds at a few thousand events). Same checks as `evolve`.
 */
export function foldLedger(merchantId: string, currency: string, events: readonly LedgerEvent[]): LedgerState {
  const writeInPlace: EntryWriter = (entries, id, value) => (entries as Map<string, typeof value>).set(id, value);
  return events.reduce((state, event) => evolveWith(state, event, writeInPlace), initialLedgerState(merchantId, currency));
}

////////// As a value

/**
 * The ledger of one merchant and currency as the command core and the specs take it. A
 * function of the stream's identity, because every event names its merchant and currency and
 * the initial state must know them.
 */
export function ledgerDecider(merchantId: string, currency: string): Decider<LedgerState, LedgerCommand, LedgerEvent> {
  return { decide, evolve, initialState: () => initialLedgerState(merchantId, currency) };
}

/** The entries of the history a command reads besides the balances: at most one of each. */
export interface LedgerEntryKeys {
  creditedOrderId?: string;
  holdId?: string;
  adjustmentId?: string;
  /** The leg of this conversion booked on this ledger, if any. */
  conversionId?: string;
}

/**
 * What `decide` reads of the state for a command, besides the balances. A store may load just
 * these entries and the running balances instead of replaying the history (TigerBeetle keeps
 * running balances the same way); the property spec checks that decisions agree.
 */
export function entriesReadBy(command: LedgerCommand): LedgerEntryKeys {
  switch (command.type) {
    case 'CreditPayIn':
      return { creditedOrderId: command.data.orderId };
    case 'PlaceHold':
    case 'PostHold':
    case 'VoidHold':
      return { holdId: command.data.holdId };
    case 'AdjustDeposit':
      return { adjustmentId: command.data.adjustmentId };
    case 'DebitConversion':
    case 'CreditConversion':
      return { conversionId: command.data.conversionId };
    default: {
      const unknownCommand: never = command;
      throw new Error(`unknown command ${String((unknownCommand as { type: unknown }).type)}`);
    }
  }
}

/** The stored version of each event type; a payload change adds a version and an upcaster. */
export const LEDGER_EVENT_SCHEMAS: EventSchemas<LedgerEvent> = {
  PayInCredited: { version: 1 },
  HoldPlaced: { version: 1 },
  HoldPosted: { version: 1 },
  HoldVoided: { version: 1 },
  DepositAdjusted: { version: 1 },
  ConversionDebited: { version: 1 },
  ConversionCredited: { version: 1 },
};
