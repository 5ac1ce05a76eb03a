// A callback delivery's history as events (docs/decisions/callback-delivery-events.md): each
// records the outcome the dispatcher's SQL decided, so the fold writes what the live
// statements wrote and cannot decide differently.
import type { DomainEvent, EventSchemas } from '@mp/shared-decider';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'endpoint_disabled' | 'awaiting_url';

/** Where a delivery stands after an event: its status and when it is due (an ISO instant, or null). */
export interface DeliveryPosition {
  status: DeliveryStatus;
  nextAttemptAt: string | null;
}

export interface DeliveryFields extends DeliveryPosition {
  deliveryId: string;
  sourceEventId: string;
  sourceEventType: string;
  sourceTopic: string;
  merchantId: string;
  subjectKind: string;
  subjectId: string;
  callbackType: string;
  stateVersion: number;
  targetUrl: string;
  body: string;
  createdAt: string;
}

export interface AttemptFields {
  attemptNumber: number;
  startedAt: string;
  instanceId: string;
  webhookTimestamp: number;
  outcome: string;
  responseStatus: number | null;
  latencyMs: number | null;
  responseExcerpt: string | null;
  error: string | null;
}

export type CallbackDeliveryEvent =
  | DomainEvent<'CallbackDeliveryRecorded', DeliveryFields>
  /** A delivery as it stood when the dispatcher began recording events: its row and attempts. */
  | DomainEvent<'CallbackDeliveryImported', DeliveryFields & { attemptCount: number; deliveredAt: string | null; attempts: AttemptFields[] }>
  | DomainEvent<'CallbackAttemptStarted', { attemptNumber: number; startedAt: string; instanceId: string; webhookTimestamp: number }>
  | DomainEvent<
      'CallbackAttemptFinished',
      DeliveryPosition & {
        attemptNumber: number;
        outcome: string;
        responseStatus: number | null;
        latencyMs: number;
        responseExcerpt: string | null;
        error: string | null;
        webhookTimestamp: number;
        deliveredAt: string | null;
      }
    >
  /** The claim given back unsent: its in-flight attempt is forgotten, the delivery due at `nextAttemptAt`. */
  | DomainEvent<'CallbackClaimReleased', { attemptNumber: number; nextAttemptAt: string }>
  | DomainEvent<'CallbackRedeliveryScheduled', DeliveryPosition>
  /** An `awaiting_url` delivery got its merchant's new default URL. */
  | DomainEvent<'CallbackTargetSet', DeliveryPosition & { targetUrl: string }>
  /** Its endpoint was disabled: parked (`endpoint_disabled`, not due). */
  | DomainEvent<'CallbackParked', DeliveryPosition>
  /** Its endpoint was re-enabled: due again. */
  | DomainEvent<'CallbackUnparked', DeliveryPosition>;

export const CALLBACK_DELIVERY_EVENT_SCHEMAS: EventSchemas<CallbackDeliveryEvent> = {
  CallbackDeliveryRecorded: { version: 1 },
  CallbackDeliveryImported: { version: 1 },
  CallbackAttemptStarted: { version: 1 },
  CallbackAttemptFinished: { version: 1 },
  CallbackClaimReleased: { version: 1 },
  CallbackRedeliveryScheduled: { version: 1 },
  CallbackTargetSet: { version: 1 },
  CallbackParked: { version: 1 },
  CallbackUnparked: { version: 1 },
};

export const CALLBACK_DELIVERY_STREAM_PREFIX = 'callback-delivery:';
export const callbackDeliveryStreamId = (deliveryId: string): string => `${CALLBACK_DELIVERY_STREAM_PREFIX}${deliveryId}`;

/** A delivery as its events leave it: the row (less its lease) and its attempts by number. */
export interface CallbackDeliveryState {
  delivery: (DeliveryFields & { attemptCount: number; deliveredAt: string | null }) | null;
  attempts: ReadonlyMap<number, AttemptFields>;
}

export const initialCallbackDeliveryState = (): CallbackDeliveryState => ({ delivery: null, attempts: new Map() });

/** The fold of a delivery's stream. */
export function evolveCallbackDelivery(state: CallbackDeliveryState, event: CallbackDeliveryEvent): CallbackDeliveryState {
  if (event.type === 'CallbackDeliveryRecorded') return { delivery: { ...event.data, attemptCount: 0, deliveredAt: null }, attempts: new Map() };
  if (event.type === 'CallbackDeliveryImported') {
    const { attempts, ...delivery } = event.data;
    return { delivery, attempts: new Map(attempts.map((attempt) => [attempt.attemptNumber, attempt])) };
  }
  const delivery = state.delivery;
  if (!delivery) throw new Error(`${event.type} before the delivery was recorded`);
  const attempts = new Map(state.attempts);
  switch (event.type) {
    case 'CallbackAttemptStarted':
      attempts.set(event.data.attemptNumber, {
        ...event.data,
        outcome: 'in_flight',
        responseStatus: null,
        latencyMs: null,
        responseExcerpt: null,
        error: null,
      });
      return { delivery: { ...delivery, attemptCount: event.data.attemptNumber }, attempts };
    case 'CallbackAttemptFinished': {
      const { attemptNumber, status, nextAttemptAt, deliveredAt, ...finished } = event.data;
      const started = attempts.get(attemptNumber);
      if (!started) throw new Error(`attempt ${attemptNumber} finished but never started`);
      attempts.set(attemptNumber, { ...started, ...finished });
      return { delivery: { ...delivery, status, nextAttemptAt, deliveredAt }, attempts };
    }
    case 'CallbackClaimReleased':
      attempts.delete(event.data.attemptNumber);
      return { delivery: { ...delivery, attemptCount: delivery.attemptCount - 1, nextAttemptAt: event.data.nextAttemptAt }, attempts };
    case 'CallbackTargetSet':
      return { delivery: { ...delivery, ...event.data }, attempts };
    case 'CallbackRedeliveryScheduled':
    case 'CallbackParked':
    case 'CallbackUnparked':
      return { delivery: { ...delivery, status: event.data.status, nextAttemptAt: event.data.nextAttemptAt }, attempts };
  }
}

/** The status and due time an attempt's outcome leaves a delivery in, as recordAttempt decides them. */
export function deliveryAfterAttempt(
  current: { status: DeliveryStatus; nextAttemptAt: Date | null; deliveredAt: Date | null; attemptStartedAt: Date; endpointDisabled: boolean },
  next: { status: 'succeeded'; at: Date } | { status: 'pending'; at: Date } | { status: 'failed' } | { status: 'endpoint_disabled' },
): { status: DeliveryStatus; nextAttemptAt: Date | null; deliveredAt: Date | null } {
  // A late answer never undoes a success another replica recorded after this lease ran out.
  if (current.status === 'succeeded') return { status: 'succeeded', nextAttemptAt: current.nextAttemptAt, deliveredAt: current.deliveredAt };
  // A redelivery asked for while the attempt was in flight moved the due time past the attempt's start: it is kept.
  const redelivery = current.nextAttemptAt !== null && current.nextAttemptAt > current.attemptStartedAt;
  const status: DeliveryStatus =
    (next.status === 'pending' || redelivery) && current.endpointDisabled ? 'endpoint_disabled' : redelivery ? 'pending' : next.status;
  return {
    status,
    nextAttemptAt: redelivery ? current.nextAttemptAt : next.status === 'pending' ? next.at : null,
    deliveredAt: current.deliveredAt ?? (next.status === 'succeeded' ? next.at : null),
  };
}
