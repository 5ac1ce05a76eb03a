export { judgeAttempt, type AttemptVerdict, type TransportResult } from './attempt-outcome';
export {
  CALLBACK_ROUTES,
  callbackBodyOf,
  eventTypesOf,
  routeEvent,
  topicsOf,
  webhookIdOf,
  type CallbackIntent,
  type CallbackRoute,
  type RoutingResult,
  type SourceEvent,
} from './callback-routing';
export { cumulativeDelaysMs, DEFAULT_RETRY_SCHEDULE, nextRetryDelayMs, parseRetrySchedule, RETRY_JITTER_RATIO, type RetrySchedule } from './retry-schedule';
export { originHealthOf, type CircuitBreakerPolicy } from './origin-circuit';
export { STORED_ANSWER_MAX_CHARS, storableAnswerText } from './stored-answer';
export {
  consecutiveFailuresReason,
  DEFAULT_ENDPOINT_DISABLING,
  endpointHealthOf,
  shouldDisableEndpoint,
  type EndpointDisablingPolicy,
  type EndpointFailureRun,
} from './endpoint-failures';
export { TEST_CALLBACK_SUBJECT_KIND, testCallbackIntent } from './test-callback';
export {
  CALLBACK_DELIVERY_EVENT_SCHEMAS,
  CALLBACK_DELIVERY_STREAM_PREFIX,
  callbackDeliveryStreamId,
  deliveryAfterAttempt,
  evolveCallbackDelivery,
  initialCallbackDeliveryState,
  type AttemptFields,
  type CallbackDeliveryEvent,
  type CallbackDeliveryState,
  type DeliveryFields,
  type DeliveryPosition,
  type DeliveryStatus,
} from './delivery-events';
