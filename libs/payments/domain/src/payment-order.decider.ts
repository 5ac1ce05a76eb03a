import type { PaymentDirection, PaymentOrderStatus } from '@mp/contracts-payments';
import { DomainError, type ErrorDetail } from '@mp/shared-util-errors';
import { formatAmountMinor } from '@mp/shared-util-money';
import { incomingMethodsFor, type MethodEntry } from './method-catalog';

////////// State

export interface ExistingPaymentOrder {
  status: PaymentOrderStatus;
  direction: PaymentDirection;
  merchantId: string;
  orderId: string;
  amountMinor: bigint;
  currency: string;
  country: string;
  callbackUrl: string;
  payerPageToken: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A stream that has no events yet is an order that does not exist. */
export type PaymentOrder = { status: 'NotCreated' } | ExistingPaymentOrder;

export const initialPaymentOrder = (): PaymentOrder => ({ status: 'NotCreated' });

////////// Commands and events

export interface CreateIncomingPayment {
  type: 'CreateIncomingPayment';
  data: {
    merchantId: string;
    orderId: string;
    amountMinor: bigint;
    currency: string;
    country: string;
    callbackUrl: string;
  };
  /** Everything from outside the decider, so replaying it gives the same result. */
  metadata: { now: Date; payerPageToken: string; methodCatalog: readonly MethodEntry[] };
}

export type PaymentOrderCommand = CreateIncomingPayment;

export interface IncomingPaymentCreated {
  type: 'IncomingPaymentCreated';
  data: {
    merchantId: string;
    orderId: string;
    amountMinor: string;
    currency: string;
    country: string;
    callbackUrl: string;
    payerPageToken: string;
    createdAt: string;
  };
}

export type PaymentOrderEvent = IncomingPaymentCreated;

////////// Decide

export function decide(command: PaymentOrderCommand, state: PaymentOrder): PaymentOrderEvent[] {
  switch (command.type) {
    case 'CreateIncomingPayment':
      return createIncomingPayment(command, state);
    default: {
      const unknownCommand: never = command.type;
      throw new Error(`unknown command ${String(unknownCommand)}`);
    }
  }
}

function createIncomingPayment(command: CreateIncomingPayment, state: PaymentOrder): PaymentOrderEvent[] {
  const { data, metadata } = command;
  if (state.status !== 'NotCreated') {
    // spec 4.3: a retry with the same amount and currency returns the same payment; an
    // order_id is unique per merchant across both directions (decisions.md).
    if (state.direction === 'incoming' && state.amountMinor === data.amountMinor && state.currency === data.currency) return [];
    throw new DomainError('DUPLICATE_ORDER', `order_id ${data.orderId} is already used by an ${state.direction} order with a different amount or currency`, [
      { field: 'order_id', issue: `already used for ${formatAmountMinor(state.amountMinor, state.currency)} ${state.currency} (${state.direction})` },
    ]);
  }

  assertAllowedByCatalog(data, metadata.methodCatalog);
  return [
    {
      type: 'IncomingPaymentCreated',
      data: {
        merchantId: data.merchantId,
        orderId: data.orderId,
        amountMinor: data.amountMinor.toString(),
        currency: data.currency,
        country: data.country,
        callbackUrl: data.callbackUrl,
        payerPageToken: metadata.payerPageToken,
        createdAt: metadata.now.toISOString(),
      },
    },
  ];
}

function assertAllowedByCatalog(data: CreateIncomingPayment['data'], catalog: readonly MethodEntry[]): void {
  const methods = incomingMethodsFor(catalog, data.country, data.currency);
  if (methods.length === 0) {
    const details: ErrorDetail[] = catalog.some((entry) => entry.direction === 'incoming' && entry.currency === data.currency)
      ? [{ field: 'country', issue: `${data.country} is not offered for ${data.currency} pay-ins; see GET /v2/merchant/methods` }]
      : [{ field: 'currency', issue: `${data.currency} pay-ins are not offered; see GET /v2/merchant/methods` }];
    throw new DomainError('VALIDATION_ERROR', 'The country and currency are not among the merchant\'s methods', details);
  }
  const minAmountMinor = methods.reduce((min, entry) => (entry.minAmountMinor < min ? entry.minAmountMinor : min), methods[0].minAmountMinor);
  const maxAmountMinor = methods.reduce((max, entry) => (entry.maxAmountMinor > max ? entry.maxAmountMinor : max), methods[0].maxAmountMinor);
  if (data.amountMinor < minAmountMinor || data.amountMinor > maxAmountMinor) {
    const range = `${formatAmountMinor(minAmountMinor, data.currency)} to ${formatAmountMinor(maxAmountMinor, data.currency)}`;
    throw new DomainError('VALIDATION_ERROR', `The amount is outside the method limits`, [{ field: 'amount', issue: `must be from ${range} ${data.currency}` }]);
  }
}

////////// Evolve

export function evolve(state: PaymentOrder, event: PaymentOrderEvent): PaymentOrder {
  switch (event.type) {
    case 'IncomingPaymentCreated':
      return {
        status: 'PENDING',
        direction: 'incoming',
        merchantId: event.data.merchantId,
        orderId: event.data.orderId,
        amountMinor: BigInt(event.data.amountMinor),
        currency: event.data.currency,
        country: event.data.country,
        callbackUrl: event.data.callbackUrl,
        payerPageToken: event.data.payerPageToken,
        createdAt: event.data.createdAt,
        updatedAt: event.data.createdAt,
      };
    default: {
      const unknownEvent: never = event.type;
      throw new Error(`unknown event ${String(unknownEvent)}`);
    }
  }
}

export function foldPaymentOrder(events: readonly PaymentOrderEvent[]): PaymentOrder {
  return events.reduce(evolve, initialPaymentOrder());
}

/** Deterministic stream id: the merchant's order_id is the idempotency key (spec 4.3). */
export function toPaymentOrderStreamId(merchantId: string, orderId: string): string {
  return `payment-order:${merchantId}:${orderId}`;
}
