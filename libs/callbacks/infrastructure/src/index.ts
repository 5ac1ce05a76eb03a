export { CALLBACKS_MIGRATIONS, CallbacksModule } from './callbacks.module';
export { CALLBACKS_SETTINGS, CLOCK, OffsetClock, type CallbacksSettings, type Clock } from './callbacks-settings';
export { CallbackSender, type SentAttempt } from './delivery/callback-sender';
export { DestinationGuard, RefusedDestinationError, type Lookup } from './delivery/ssrf-guard';
export { GatewayWebhookProfiles, signedHeaders, type WebhookProfiles } from './delivery/webhook-profile.client';
export { CALLBACK_CONSUMERS, CALLBACKS_CONSUMER_GROUP, connectCallbackConsumers } from './consume/source-events.consumer';
export { CALLBACK_ATTEMPTS_METRIC, registerCallbackMetrics } from './callback-metrics';
export { CALLBACKS_INTERNAL_ACCESS } from './internal-access';
export { CALLBACKS_DELIVERIES_PROJECTION, CALLBACKS_PROJECTIONS } from './rebuild/callbacks.rebuild';
