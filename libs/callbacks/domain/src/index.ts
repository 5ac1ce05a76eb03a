export { judgeAttempt, type AttemptVerdict, type TransportResult } from './attempt-outcome';
export { CALLBACK_ROUTES, callbackBodyOf, routeEvent, topicsOf, webhookIdOf, type CallbackIntent, type CallbackRoute, type RoutingResult, type SourceEvent } from './callback-routing';
export { cumulativeDelaysMs, DEFAULT_RETRY_SCHEDULE, nextRetryDelayMs, parseRetrySchedule, RETRY_JITTER_RATIO, type RetrySchedule } from './retry-schedule';
