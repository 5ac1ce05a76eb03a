import type { CallbackBody, CallbackType } from '@mp/contracts-callbacks';
import { DISPUTE_EXTERNAL_EVENT_TYPES, DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES, DISPUTES_TOPICS, type DisputeExternalEventData } from '@mp/contracts-disputes';
import { PAYMENT_ORDER_EXTERNAL_EVENT_TYPES, PAYMENTS_TOPICS, type PaymentOrderExternalEventData, type PaymentOrderExternalView } from '@mp/contracts-payments';
import { WITHDRAWAL_EXTERNAL_EVENT_TYPES, WITHDRAWALS_TOPICS, type WithdrawalExternalEventData } from '@mp/contracts-withdrawals';
import { stringifyMerchantJson } from '@mp/shared-util-validation';

/**
 * The fields of a received envelope routing needs. Its `data` has been checked against its
 * contract's payload class (libs/contracts) where the dispatcher's intake reads it.
 */
export interface SourceEvent {
  id: string;
  type: string;
  data: unknown;
}

/** Where one event's callback goes and what it says. */
export interface CallbackIntent {
  merchantId: string;
  callbackType: CallbackType;
  subject: { kind: string; id: string };
  /** The state object's version after the event; receivers drop anything older. */
  stateVersion: number;
  /** `order`: the URL the object carries; `merchant_default`: the merchant profile's default URL. */
  target: { kind: 'url'; url: string } | { kind: 'merchant_default' };
  /** The API's state object at that version. */
  state: Record<string, unknown>;
  occurredAt: string;
}

/**
 * One row of the routing table: which event of which topic becomes which callback, and how
 * to find the merchant, the target URL and the state object. Withdrawal and dispute topics
 * plug in by adding rows (withdrawals with `target: merchant_default`).
 */
export interface CallbackRoute {
  topic: string;
  eventType: string;
  callbackType: CallbackType;
  intentOf(event: SourceEvent): Omit<CallbackIntent, 'callbackType'>;
}

/**
 * The order as `GET /v2/payments/status/{order_id}` shows it. The event's snapshot names the
 * masked recipient `account_number_masked` (explicit for other contexts); merchants know it as
 * `account_number`. The payer-page link is not in the snapshot: it carries a token that never
 * travels on Kafka.
 */
function merchantStateOf(order: PaymentOrderExternalView): Record<string, unknown> {
  const { account_number_masked: accountNumber, ...rest } = order;
  const state: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(rest)) {
    state[key] = value;
    // Where the status endpoint has it: right after callback_url.
    if (key === 'callback_url' && accountNumber !== undefined) state['account_number'] = accountNumber;
  }
  return state;
}

/** External payment-order events carry everything: merchant, version and the order snapshot. */
function paymentOrderIntent(event: SourceEvent): Omit<CallbackIntent, 'callbackType'> {
  const data = event.data as PaymentOrderExternalEventData;
  return {
    merchantId: data.merchantId,
    subject: { kind: 'payment_order', id: data.orderId },
    stateVersion: data.version,
    target: { kind: 'url', url: data.order.callback_url },
    state: merchantStateOf(data.order),
    occurredAt: data.occurredAt,
  };
}

/**
 * Events whose state object is the event's own snapshot (`withdrawal`, `dispute`): merchant,
 * version and time from the event, sent to the merchant's default callback URL. docs/api
 * sends withdrawal outcomes there; a dispute's review is sent there too, because the disputed
 * order's `callback_url` is the pay-in's and disputes do not carry it (documented in
 * docs/api/callbacks.md).
 */
function snapshotIntent<Data extends WithdrawalExternalEventData | DisputeExternalEventData>(kind: 'withdrawal' | 'dispute', idOf: (data: Data) => string) {
  return (event: SourceEvent): Omit<CallbackIntent, 'callbackType'> => {
    const data = event.data as Data;
    const state = (data as unknown as Record<string, Record<string, unknown>>)[kind];
    return {
      merchantId: data.merchantId,
      subject: { kind, id: idOf(data) },
      stateVersion: data.version,
      target: { kind: 'merchant_default' },
      state: { ...state },
      occurredAt: data.occurredAt,
    };
  };
}

const paymentOutcome = (eventType: string, callbackType: CallbackType): CallbackRoute => ({
  topic: PAYMENTS_TOPICS.orderEvents,
  eventType,
  callbackType,
  intentOf: paymentOrderIntent,
});
const withdrawalOutcome = (eventType: string, callbackType: CallbackType): CallbackRoute => ({
  topic: WITHDRAWALS_TOPICS.events,
  eventType,
  callbackType,
  intentOf: snapshotIntent<WithdrawalExternalEventData>('withdrawal', (data) => data.orderId),
});
const disputeChange = (eventType: string, callbackType: CallbackType): CallbackRoute => ({
  topic: DISPUTES_TOPICS.events,
  eventType,
  callbackType,
  intentOf: snapshotIntent<DisputeExternalEventData>('dispute', (data) => data.disputeId),
});

/** docs/api/callbacks.md: the outcomes merchants are told about, by source event. */
export const CALLBACK_ROUTES: readonly CallbackRoute[] = [
  paymentOutcome(PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.succeeded, 'payment.succeeded'),
  paymentOutcome(PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.failed, 'payment.failed'),
  paymentOutcome(PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.cancelled, 'payment.cancelled'),
  paymentOutcome(PAYMENT_ORDER_EXTERNAL_EVENT_TYPES.expired, 'payment.expired'),
  withdrawalOutcome(WITHDRAWAL_EXTERNAL_EVENT_TYPES.completed, 'withdrawal.completed'),
  withdrawalOutcome(WITHDRAWAL_EXTERNAL_EVENT_TYPES.failed, 'withdrawal.failed'),
  // A retry reopening a rejected dispute is published as DisputeOpened too: merchants hear of it.
  disputeChange(DISPUTE_EXTERNAL_EVENT_TYPES.opened, 'dispute.opened'),
  // A review's outcome once payments has applied it and the dispute's reads show it, not the
  // review itself: a merchant who fetches the dispute on its callback reads what it was told.
  disputeChange(DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES.accepted, 'dispute.accepted'),
  disputeChange(DISPUTE_OUTCOME_VISIBLE_EVENT_TYPES.rejected, 'dispute.rejected'),
];

export function topicsOf(routes: readonly CallbackRoute[]): string[] {
  return [...new Set(routes.map((route) => route.topic))];
}

/** The event types of `topic` that routes turn into callbacks: the only ones the dispatcher decodes. */
export function eventTypesOf(routes: readonly CallbackRoute[], topic: string): string[] {
  return [...new Set(routes.filter((route) => route.topic === topic).map((route) => route.eventType))];
}

export type RoutingResult = { kind: 'ignored' } | { kind: 'callback'; intent: CallbackIntent };

/** The callback an event causes, if any. Events no route names (creation, progress) cause none. */
export function routeEvent(routes: readonly CallbackRoute[], topic: string, event: SourceEvent): RoutingResult {
  const route = routes.find((candidate) => candidate.topic === topic && candidate.eventType === event.type);
  if (!route) return { kind: 'ignored' };
  return { kind: 'callback', intent: { ...route.intentOf(event), callbackType: route.callbackType } };
}

/**
 * The webhook id of an event's callback: derived from the source event id, so a redelivered
 * event finds its delivery again. Standard Webhooks ids must not contain dots.
 */
export function webhookIdOf(sourceEventId: string): string {
  return `msg_${sourceEventId.replace(/-/g, '')}`;
}

/** The exact bytes sent on every attempt: serialised once, stored, never re-serialised. */
export function callbackBodyOf(webhookId: string, intent: CallbackIntent): string {
  const body: CallbackBody = {
    id: webhookId,
    type: intent.callbackType,
    created_at: intent.occurredAt,
    data: { ...intent.state, version: intent.stateVersion },
  };
  // Money as JSON numbers, exactly as the status endpoint writes them.
  return stringifyMerchantJson(body);
}
