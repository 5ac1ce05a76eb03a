import type { PaymentDirection, PaymentOrderStatus } from '@mp/contracts-payments';
import type { Decider, EventSchemas } from '@mp/shared-decider';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { calculateFeeMinor, formatAmountMinor } from '@mp/shared-util-money';
import { sameMetadata } from '@mp/shared-util-validation';
import { incomingMethodsFor, outgoingMethodFor, type MethodEntry } from './method-catalog';

////////// State

export interface PayoutReceipt {
  receiptId: string;
  fileName: string;
  contentType: string;
  sizeBytes: number;
  uploadedAt: string;
}

/**
 * The payout recipient's account as the order knows it: the full number is stored encrypted
 * apart from the order (payments' `payout_recipient_accounts`) and only its reference and last
 * four characters appear in events, projections and views.
 */
export interface RecipientAccountRef {
  reference: string;
  last4: string;
}

export interface ExistingPaymentOrder {
  status: PaymentOrderStatus;
  direction: PaymentDirection;
  merchantId: string;
  orderId: string;
  amountMinor: bigint;
  currency: string;
  country: string;
  /** Incoming: the catalog entry chosen at creation (its fee applies); outgoing: as requested. */
  method: string;
  callbackUrl: string;
  /** Incoming: where the payer page links back to at a final state; null: the merchant's default. */
  returnUrl: string | null;
  /** The merchant's reference data: stored and shown, never read to decide anything (only compared on a retry). */
  metadata: Record<string, string>;
  recipientAccount: RecipientAccountRef | null;
  /** Fixed at creation from the merchant's method configuration then in force. */
  feeMinor: bigint;
  /** SHA-256 of the payer-page token (the token itself is derived when a link is shown, never stored). */
  payerPageTokenHash: string | null;
  agentId: string | null;
  payerMarkedPaidAt: string | null;
  expiresAt: string;
  receipts: PayoutReceipt[];
  failureReason: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A stream that has no events yet is an order that does not exist. */
export type PaymentOrder = { status: 'NotCreated' } | ExistingPaymentOrder;

export const initialPaymentOrder = (): PaymentOrder => ({ status: 'NotCreated' });

export const FINISHED_STATUSES: readonly PaymentOrderStatus[] = ['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED'];

export const isFinished = (order: ExistingPaymentOrder): boolean => FINISHED_STATUSES.includes(order.status);

////////// Commands

/** Everything from outside the decider, so replaying it gives the same result. */
interface CommandMetadata {
  now: Date;
}

export interface CreateIncomingPayment {
  type: 'CreateIncomingPayment';
  /** `method` absent: the default method (see `createIncomingPayment`). */
  data: {
    merchantId: string;
    orderId: string;
    amountMinor: bigint;
    currency: string;
    country: string;
    callbackUrl: string;
    method?: string;
    returnUrl?: string;
    metadata?: Record<string, string>;
  };
  metadata: CommandMetadata & { payerPageTokenHash: string; methodCatalog: readonly MethodEntry[] };
}

export interface CreateOutgoingPayment {
  type: 'CreateOutgoingPayment';
  data: {
    merchantId: string;
    orderId: string;
    amountMinor: bigint;
    currency: string;
    country: string;
    method: string;
    callbackUrl: string;
    recipientAccount: RecipientAccountRef;
    metadata?: Record<string, string>;
  };
  /**
   * `sameRecipientAccount`: for a retry of an existing payout, whether its account number is the
   * one the payout was created with (the vault compares the two stored numbers; the decider
   * never sees a full number). Absent when no payout has this order_id.
   */
  metadata: CommandMetadata & { methodCatalog: readonly MethodEntry[]; sameRecipientAccount?: boolean };
}

/** The payer asked the payer page for payment details (pay-in) or an agent took the order (payout). */
export interface AssignAgent {
  type: 'AssignAgent';
  data: { agentId: string };
  metadata: CommandMetadata;
}

export interface MarkPaidByPayer {
  type: 'MarkPaidByPayer';
  metadata: CommandMetadata;
}

export interface ConfirmIncomingPayment {
  type: 'ConfirmIncomingPayment';
  data: { agentId: string };
  metadata: CommandMetadata;
}

export interface CompleteOutgoingPayment {
  type: 'CompleteOutgoingPayment';
  data: { agentId: string; receipt: PayoutReceipt };
  metadata: CommandMetadata;
}

export interface DeclinePaymentOrder {
  type: 'DeclinePaymentOrder';
  data: { agentId: string; reason: string };
  metadata: CommandMetadata;
}

export interface CancelPaymentOrder {
  type: 'CancelPaymentOrder';
  metadata: CommandMetadata;
}

export interface ExpirePaymentOrder {
  type: 'ExpirePaymentOrder';
  metadata: CommandMetadata;
}

/**
 * A dispute on this pay-in was accepted (disputes' DisputeAccepted external event): the order
 * settles for the disputed amount, with the fee of the order's method recomputed for it.
 * `methodCatalog` is the merchant's catalog now; the order's own method entry gives the fee.
 */
export interface SettleIncomingPaymentByDispute {
  type: 'SettleIncomingPaymentByDispute';
  data: { disputeId: string; amountMinor: bigint };
  metadata: CommandMetadata & { methodCatalog: readonly MethodEntry[] };
}

export type PaymentOrderCommand =
  | CreateIncomingPayment
  | CreateOutgoingPayment
  | AssignAgent
  | MarkPaidByPayer
  | ConfirmIncomingPayment
  | CompleteOutgoingPayment
  | DeclinePaymentOrder
  | CancelPaymentOrder
  | ExpirePaymentOrder
  | SettleIncomingPaymentByDispute;

////////// Events

interface OrderCreatedFields {
  merchantId: string;
  orderId: string;
  amountMinor: string;
  currency: string;
  country: string;
  method: string;
  callbackUrl: string;
  feeMinor: string;
  expiresAt: string;
  createdAt: string;
  /** Since version 3 (`{}` for orders created before). */
  metadata: Record<string, string>;
}

export interface IncomingPaymentCreated {
  type: 'IncomingPaymentCreated';
  /** `returnUrl` since version 3 (null for orders created before). */
  data: OrderCreatedFields & { payerPageTokenHash: string; returnUrl: string | null };
}

export interface OutgoingPaymentCreated {
  type: 'OutgoingPaymentCreated';
  data: OrderCreatedFields & { recipientAccount: RecipientAccountRef };
}

/** Events after creation carry the order's identity and amounts, so consumers (ledger, callbacks) need no lookup. */
interface OrderEventFields {
  merchantId: string;
  orderId: string;
  direction: PaymentDirection;
  amountMinor: string;
  feeMinor: string;
  currency: string;
  occurredAt: string;
}

export interface PaymentOrderAgentAssigned {
  type: 'PaymentOrderAgentAssigned';
  data: OrderEventFields & { agentId: string };
}

export interface IncomingPaymentMarkedPaid {
  type: 'IncomingPaymentMarkedPaid';
  data: OrderEventFields;
}

export interface PaymentOrderSucceeded {
  type: 'PaymentOrderSucceeded';
  data: OrderEventFields & { agentId: string; receipt: PayoutReceipt | null };
}

/** The order succeeded through an accepted dispute, for the amount and fee given here. */
export interface IncomingPaymentSettledByDispute {
  type: 'IncomingPaymentSettledByDispute';
  data: OrderEventFields & { agentId: string | null; disputeId: string };
}

export interface PaymentOrderFailed {
  type: 'PaymentOrderFailed';
  data: OrderEventFields & { agentId: string; reason: string };
}

export interface PaymentOrderCancelled {
  type: 'PaymentOrderCancelled';
  data: OrderEventFields;
}

export interface PaymentOrderExpired {
  type: 'PaymentOrderExpired';
  data: OrderEventFields;
}

export type PaymentOrderEvent =
  | IncomingPaymentCreated
  | OutgoingPaymentCreated
  | PaymentOrderAgentAssigned
  | IncomingPaymentMarkedPaid
  | PaymentOrderSucceeded
  | IncomingPaymentSettledByDispute
  | PaymentOrderFailed
  | PaymentOrderCancelled
  | PaymentOrderExpired;

////////// Decide

export function decide(command: PaymentOrderCommand, state: PaymentOrder): PaymentOrderEvent[] {
  switch (command.type) {
    case 'CreateIncomingPayment':
      return createIncomingPayment(command, state);
    case 'CreateOutgoingPayment':
      return createOutgoingPayment(command, state);
    case 'AssignAgent':
      return assignAgent(command, existing(state));
    case 'MarkPaidByPayer':
      return markPaidByPayer(command, existing(state));
    case 'ConfirmIncomingPayment':
      return confirmIncomingPayment(command, assignedTo(state, command.data.agentId));
    case 'CompleteOutgoingPayment':
      return completeOutgoingPayment(command, assignedTo(state, command.data.agentId));
    case 'DeclinePaymentOrder':
      return declinePaymentOrder(command, assignedTo(state, command.data.agentId));
    case 'CancelPaymentOrder':
      return cancelPaymentOrder(command, existing(state));
    case 'ExpirePaymentOrder':
      return expirePaymentOrder(command, existing(state));
    case 'SettleIncomingPaymentByDispute':
      return settleIncomingPaymentByDispute(command, existing(state));
    default: {
      const unknownCommand: never = command;
      throw new Error(`unknown command ${JSON.stringify(unknownCommand)}`);
    }
  }
}

function existing(state: PaymentOrder): ExistingPaymentOrder {
  if (state.status === 'NotCreated') throw new DomainError('ORDER_NOT_FOUND', 'No such order');
  return state;
}

/**
 * spec 4.3 and docs/api: a retry with the same amount, currency and method returns the same
 * order; an order_id is unique per merchant across both directions. A retry that names no
 * method does not compare it: the method was either named by the first request or chosen by
 * the default rule, and re-running that rule against today's catalog could differ from the
 * order's (a catalog change must not break a retry), so "no method" means "the order's".
 */
function assertSameOrderOrThrow(
  state: ExistingPaymentOrder,
  direction: PaymentDirection,
  data: { orderId: string; amountMinor: bigint; currency: string; method?: string; metadata?: Record<string, string> },
): void {
  const sameMethod = data.method === undefined || data.method === state.method;
  if (state.direction === direction && state.amountMinor === data.amountMinor && state.currency === data.currency && sameMethod) {
    assertSameMetadataOrThrow(state.metadata, data.metadata, data.orderId);
    return;
  }
  throw new DomainError(
    'DUPLICATE_ORDER',
    `order_id ${data.orderId} is already used by an ${state.direction} order with a different amount, currency or method`,
    [
      {
        field: 'order_id',
        issue: `already used for ${formatAmountMinor(state.amountMinor, state.currency)} ${state.currency} by ${state.method} (${state.direction})`,
      },
    ],
  );
}

/**
 * A retry's metadata must be the order's, key for key (absent is `{}`): a retry is the same
 * request again, and answering different reference data with an order that carries other data
 * would leave the merchant's systems believing what is not stored (docs/decisions/merchant-metadata.md).
 */
function assertSameMetadataOrThrow(stored: Record<string, string>, sent: Record<string, string> | undefined, orderId: string): void {
  if (sameMetadata(stored, sent ?? {})) return;
  throw new DomainError('DUPLICATE_ORDER', `order_id ${orderId} is already used by an order with different metadata`, [
    { field: 'metadata', issue: 'differs from the metadata the order was created with; read it with GET /v2/payments/status/{order_id}' },
  ]);
}

function createIncomingPayment(command: CreateIncomingPayment, state: PaymentOrder): PaymentOrderEvent[] {
  const { data, metadata } = command;
  if (state.status !== 'NotCreated') {
    assertSameOrderOrThrow(state, 'incoming', data);
    return [];
  }
  const methods = incomingMethodsFor(metadata.methodCatalog, data.country, data.currency);
  if (methods.length === 0) {
    const offered = metadata.methodCatalog.some((entry) => entry.direction === 'incoming' && entry.currency === data.currency);
    throw notOffered(
      offered
        ? { field: 'country', issue: `${data.country} is not offered for ${data.currency} pay-ins; see GET /v2/merchant/methods` }
        : { field: 'currency', issue: `${data.currency} pay-ins are not offered; see GET /v2/merchant/methods` },
    );
  }
  let method: MethodEntry | undefined;
  if (data.method !== undefined) {
    // The merchant chose one of its incoming methods for this country and currency (spec section 1, rule 7).
    method = methods.find((entry) => entry.method === data.method);
    if (!method) {
      const offered = methods.map((entry) => entry.method).join(', ');
      throw notOffered({ field: 'method', issue: `${data.method} pay-ins in ${data.currency} from ${data.country} are not offered; offered: ${offered}` });
    }
    if (data.amountMinor < method.minAmountMinor || data.amountMinor > method.maxAmountMinor) throw outsideLimits([method], data.amountMinor, data.currency);
  } else {
    // The default without a method: the first incoming entry, in the merchant's catalog order,
    // for this country and currency whose limits admit the amount. Its fee and expiry apply.
    method = methods.find((entry) => data.amountMinor >= entry.minAmountMinor && data.amountMinor <= entry.maxAmountMinor);
    if (!method) throw outsideLimits(methods, data.amountMinor, data.currency);
  }
  return [
    {
      type: 'IncomingPaymentCreated',
      data: { ...createdFields(data, method, metadata.now), payerPageTokenHash: metadata.payerPageTokenHash, returnUrl: data.returnUrl ?? null },
    },
  ];
}

function createOutgoingPayment(command: CreateOutgoingPayment, state: PaymentOrder): PaymentOrderEvent[] {
  const { data, metadata } = command;
  if (state.status !== 'NotCreated') {
    assertSameOrderOrThrow(state, 'outgoing', data);
    // A payout is also its recipient: a retry to another account must not answer with a payout to the first.
    if (metadata.sameRecipientAccount === false) {
      throw new DomainError('DUPLICATE_ORDER', `order_id ${data.orderId} is already used by a payout to a different account`, [
        { field: 'account_number', issue: `differs from the account the payout was created with (ending ${state.recipientAccount?.last4 ?? '?'})` },
      ]);
    }
    return [];
  }
  const method = outgoingMethodFor(metadata.methodCatalog, data.method, data.country, data.currency);
  if (!method) {
    throw notOffered({ field: 'method', issue: `${data.method} payouts in ${data.currency} to ${data.country} are not offered; see GET /v2/merchant/methods` });
  }
  if (data.amountMinor < method.minAmountMinor || data.amountMinor > method.maxAmountMinor) throw outsideLimits([method], data.amountMinor, data.currency);
  return [{ type: 'OutgoingPaymentCreated', data: { ...createdFields(data, method, metadata.now), recipientAccount: data.recipientAccount } }];
}

function createdFields(
  data: { merchantId: string; orderId: string; amountMinor: bigint; currency: string; country: string; callbackUrl: string; metadata?: Record<string, string> },
  method: MethodEntry,
  now: Date,
): OrderCreatedFields {
  return {
    merchantId: data.merchantId,
    orderId: data.orderId,
    amountMinor: data.amountMinor.toString(),
    currency: data.currency,
    country: data.country,
    method: method.method,
    callbackUrl: data.callbackUrl,
    feeMinor: calculateFeeMinor(data.amountMinor, method.feeRateBasisPoints, method.feeFixedMinor).toString(),
    expiresAt: new Date(now.getTime() + method.expiryMinutes * 60_000).toISOString(),
    createdAt: now.toISOString(),
    metadata: data.metadata ?? {},
  };
}

function notOffered(detail: ErrorDetail): DomainError {
  return new DomainError('VALIDATION_ERROR', "The method, country and currency are not among the merchant's methods", [detail]);
}

function outsideLimits(methods: MethodEntry[], amountMinor: bigint, currency: string): DomainError {
  const minAmountMinor = methods.reduce((min, entry) => (entry.minAmountMinor < min ? entry.minAmountMinor : min), methods[0].minAmountMinor);
  const maxAmountMinor = methods.reduce((max, entry) => (entry.maxAmountMinor > max ? entry.maxAmountMinor : max), methods[0].maxAmountMinor);
  const range = `${formatAmountMinor(minAmountMinor, currency)} to ${formatAmountMinor(maxAmountMinor, currency)}`;
  return new DomainError('VALIDATION_ERROR', 'The amount is outside the method limits', [
    { field: 'amount', issue: `must be from ${range} ${currency}, got ${formatAmountMinor(amountMinor, currency)}` },
  ]);
}

function eventFields(order: ExistingPaymentOrder, now: Date): OrderEventFields {
  return {
    merchantId: order.merchantId,
    orderId: order.orderId,
    direction: order.direction,
    amountMinor: order.amountMinor.toString(),
    feeMinor: order.feeMinor.toString(),
    currency: order.currency,
    occurredAt: now.toISOString(),
  };
}

function stateConflict(order: ExistingPaymentOrder, action: string): DomainError {
  return new DomainError('ORDER_STATE_CONFLICT', `Cannot ${action}: the order is ${order.status}${order.agentId ? ` (agent ${order.agentId})` : ''}`, [
    { field: 'status', issue: order.status },
  ]);
}

/**
 * What an agent is told about any order it may not see, whether that order exists or not: one
 * body, with no order id in it, so an agent cannot probe which merchants' order ids exist.
 */
export function agentOrderNotFound(): DomainError {
  return new DomainError('ORDER_NOT_FOUND', 'No such order for this agent');
}

/** Agents act only on their own orders: another agent's order and a missing one are not found alike. */
function assignedTo(state: PaymentOrder, agentId: string): ExistingPaymentOrder {
  if (state.status === 'NotCreated' || state.agentId !== agentId) throw agentOrderNotFound();
  return state;
}

function assignAgent(command: AssignAgent, order: ExistingPaymentOrder): PaymentOrderEvent[] {
  if (order.agentId === command.data.agentId) return [];
  if (order.status !== 'PENDING' || order.agentId !== null) throw stateConflict(order, 'assign an agent');
  return [{ type: 'PaymentOrderAgentAssigned', data: { ...eventFields(order, command.metadata.now), agentId: command.data.agentId } }];
}

function markPaidByPayer(command: MarkPaidByPayer, order: ExistingPaymentOrder): PaymentOrderEvent[] {
  if (order.direction !== 'incoming') throw new DomainError('ORDER_NOT_FOUND', 'No such payment page');
  if (order.payerMarkedPaidAt !== null) return [];
  if (order.status !== 'PENDING' || order.agentId === null) throw stateConflict(order, 'report the payment');
  return [{ type: 'IncomingPaymentMarkedPaid', data: eventFields(order, command.metadata.now) }];
}

function confirmIncomingPayment(command: ConfirmIncomingPayment, order: ExistingPaymentOrder): PaymentOrderEvent[] {
  if (order.direction !== 'incoming') throw stateConflict(order, 'confirm a payout as received');
  if (order.status === 'SUCCEEDED') return [];
  if (order.status !== 'PENDING') throw stateConflict(order, 'confirm the payment');
  return [{ type: 'PaymentOrderSucceeded', data: { ...eventFields(order, command.metadata.now), agentId: command.data.agentId, receipt: null } }];
}

function completeOutgoingPayment(command: CompleteOutgoingPayment, order: ExistingPaymentOrder): PaymentOrderEvent[] {
  if (order.direction !== 'outgoing') throw stateConflict(order, 'complete a pay-in with a receipt');
  if (order.status === 'SUCCEEDED') return [];
  if (order.status !== 'PENDING') throw stateConflict(order, 'complete the payout');
  return [
    { type: 'PaymentOrderSucceeded', data: { ...eventFields(order, command.metadata.now), agentId: command.data.agentId, receipt: command.data.receipt } },
  ];
}

function declinePaymentOrder(command: DeclinePaymentOrder, order: ExistingPaymentOrder): PaymentOrderEvent[] {
  if (order.status === 'FAILED') return [];
  if (order.status !== 'PENDING') throw stateConflict(order, 'decline the order');
  return [{ type: 'PaymentOrderFailed', data: { ...eventFields(order, command.metadata.now), agentId: command.data.agentId, reason: command.data.reason } }];
}

/** A pay-in the payer reports as paid, or a payout an agent has taken: only the agent may end it now. */
function moneyMayBeMoving(order: ExistingPaymentOrder): boolean {
  return order.direction === 'incoming' ? order.payerMarkedPaidAt !== null : order.agentId !== null;
}

/**
 * Merchants cancel unfinished orders, except where money may already be moving: a pay-in the
 * payer reports as paid (the agent must confirm or decline it) and a payout an agent has taken.
 * A finished order, one already CANCELLED included, is refused with its current status in the
 * details (spec 4.5, docs/api/states.md): a client retrying a cancel after a timeout learns
 * the outcome from the error, and a replayed cancel request is never a silent success.
 */
function cancelPaymentOrder(command: CancelPaymentOrder, order: ExistingPaymentOrder): PaymentOrderEvent[] {
  if (isFinished(order) || moneyMayBeMoving(order)) {
    const why = isFinished(order) ? `it is ${order.status}` : order.direction === 'incoming' ? 'the payer reported paying it' : 'an agent is paying it out';
    throw new DomainError('ORDER_NOT_CANCELLABLE', `Order ${order.orderId} cannot be cancelled: ${why}`, [{ field: 'status', issue: order.status }]);
  }
  return [{ type: 'PaymentOrderCancelled', data: eventFields(order, command.metadata.now) }];
}

/** Expiry follows the same rule as cancelling: an order whose money may be moving waits for its agent. */
function expirePaymentOrder(command: ExpirePaymentOrder, order: ExistingPaymentOrder): PaymentOrderEvent[] {
  if (order.status !== 'PENDING' || command.metadata.now.getTime() < Date.parse(order.expiresAt)) return [];
  if (moneyMayBeMoving(order)) return [];
  return [{ type: 'PaymentOrderExpired', data: eventFields(order, command.metadata.now) }];
}

/**
 * docs/api/states.md: an accepted dispute settles the pay-in as SUCCEEDED for the disputed
 * amount, whatever its state was (PENDING, FAILED after a decline, EXPIRED, CANCELLED), with
 * the fee of the order's method for that amount (the fixed part and rate of the method entry
 * the order was created under; if the merchant's catalog no longer has that entry, the fee
 * the order was created with is scaled to the new amount).
 * An order that already SUCCEEDED was credited by the ledger when its agent confirmed it; it
 * keeps that outcome and this changes nothing (see docs/api/states.md): the ledger credits an
 * order once, and a second, different success of the same order is not something merchants
 * or the books can reconcile.
 */
function settleIncomingPaymentByDispute(command: SettleIncomingPaymentByDispute, order: ExistingPaymentOrder): PaymentOrderEvent[] {
  if (order.direction !== 'incoming') throw new DomainError('ORDER_NOT_FOUND', 'No such incoming order');
  if (order.status === 'SUCCEEDED') return [];
  const { amountMinor, disputeId } = command.data;
  const entry = command.metadata.methodCatalog.find(
    (method) => method.direction === 'incoming' && method.method === order.method && method.currency === order.currency && method.country === order.country,
  );
  const feeMinor = entry ? calculateFeeMinor(amountMinor, entry.feeRateBasisPoints, entry.feeFixedMinor) : (order.feeMinor * amountMinor) / order.amountMinor;
  const fields = {
    ...eventFields(order, command.metadata.now),
    amountMinor: amountMinor.toString(),
    feeMinor: (feeMinor > amountMinor ? amountMinor : feeMinor).toString(),
  };
  return [{ type: 'IncomingPaymentSettledByDispute', data: { ...fields, agentId: order.agentId, disputeId } }];
}

////////// Evolve

export function evolve(state: PaymentOrder, event: PaymentOrderEvent): PaymentOrder {
  switch (event.type) {
    case 'IncomingPaymentCreated':
    case 'OutgoingPaymentCreated':
      return created(event);
    case 'PaymentOrderAgentAssigned':
      return { ...existing(state), agentId: event.data.agentId, updatedAt: event.data.occurredAt };
    case 'IncomingPaymentMarkedPaid':
      return { ...existing(state), payerMarkedPaidAt: event.data.occurredAt, updatedAt: event.data.occurredAt };
    case 'PaymentOrderSucceeded': {
      const order = existing(state);
      return {
        ...order,
        status: 'SUCCEEDED',
        receipts: event.data.receipt ? [...order.receipts, event.data.receipt] : order.receipts,
        updatedAt: event.data.occurredAt,
      };
    }
    case 'IncomingPaymentSettledByDispute':
      return {
        ...existing(state),
        status: 'SUCCEEDED',
        amountMinor: BigInt(event.data.amountMinor),
        feeMinor: BigInt(event.data.feeMinor),
        failureReason: null,
        updatedAt: event.data.occurredAt,
      };
    case 'PaymentOrderFailed':
      return { ...existing(state), status: 'FAILED', failureReason: event.data.reason, updatedAt: event.data.occurredAt };
    case 'PaymentOrderCancelled':
      return { ...existing(state), status: 'CANCELLED', updatedAt: event.data.occurredAt };
    case 'PaymentOrderExpired':
      return { ...existing(state), status: 'EXPIRED', updatedAt: event.data.occurredAt };
    default: {
      const unknownEvent: never = event;
      throw new Error(`unknown event ${JSON.stringify(unknownEvent)}`);
    }
  }
}

function created(event: IncomingPaymentCreated | OutgoingPaymentCreated): ExistingPaymentOrder {
  const { data } = event;
  return {
    status: 'PENDING',
    direction: event.type === 'IncomingPaymentCreated' ? 'incoming' : 'outgoing',
    merchantId: data.merchantId,
    orderId: data.orderId,
    amountMinor: BigInt(data.amountMinor),
    currency: data.currency,
    country: data.country,
    method: data.method,
    callbackUrl: data.callbackUrl,
    returnUrl: event.type === 'IncomingPaymentCreated' ? event.data.returnUrl : null,
    metadata: data.metadata,
    recipientAccount: event.type === 'OutgoingPaymentCreated' ? event.data.recipientAccount : null,
    feeMinor: BigInt(data.feeMinor),
    payerPageTokenHash: event.type === 'IncomingPaymentCreated' ? event.data.payerPageTokenHash : null,
    agentId: null,
    payerMarkedPaidAt: null,
    expiresAt: data.expiresAt,
    receipts: [],
    failureReason: null,
    createdAt: data.createdAt,
    updatedAt: data.createdAt,
  };
}

/** Deterministic stream id: the merchant's order_id is the idempotency key (spec 4.3). */
export function toPaymentOrderStreamId(merchantId: string, orderId: string): string {
  return `payment-order:${merchantId}:${orderId}`;
}

////////// As a value

/** The payment-order aggregate as the command core and the specs take it. */
export const paymentOrderDecider: Decider<PaymentOrder, PaymentOrderCommand, PaymentOrderEvent> = { decide, evolve, initialState: initialPaymentOrder };

/**
 * The stored version of each event type. A payload change adds a version here and an upcaster
 * from the previous one; events already stored are never rewritten. These internal events never
 * leave payments; other contexts get the external events (contracts).
 *
 * Version 2 of the two creation events: the payer-page token became its hash and the account
 * number a vault reference with its last four characters. Version 1 carried those secrets in
 * plain text and was never released, so it has no upcaster (an upcaster cannot encrypt into the
 * vault); a development database from before it is reset with `rm -rf .local/dev`.
 *
 * Version 3 of the two creation events: the merchant's `metadata` (both) and the pay-in's
 * `returnUrl`. Orders created before had neither: the upcasters give them `{}` and null.
 */
export const PAYMENT_ORDER_EVENT_SCHEMAS: EventSchemas<PaymentOrderEvent> = {
  IncomingPaymentCreated: { version: 3, upcasters: { 2: (data: object) => ({ ...data, returnUrl: null, metadata: {} }) } },
  OutgoingPaymentCreated: { version: 3, upcasters: { 2: (data: object) => ({ ...data, metadata: {} }) } },
  PaymentOrderAgentAssigned: { version: 1 },
  IncomingPaymentMarkedPaid: { version: 1 },
  PaymentOrderSucceeded: { version: 1 },
  IncomingPaymentSettledByDispute: { version: 1 },
  PaymentOrderFailed: { version: 1 },
  PaymentOrderCancelled: { version: 1 },
  PaymentOrderExpired: { version: 1 },
};
