export { CALLBACKS_MIGRATIONS, CallbacksModule } from './callbacks.module';
export { CALLBACKS_SETTINGS, CLOCK, OffsetClock, type CallbacksSettings, type Clock } from './callbacks-settings';
export { CallbackSender, type SentAttempt } from './delivery/callback-sender';
export { DestinationGuard, RefusedDestinationError, type Lookup } from './delivery/ssrf-guard';
export { GatewayWebhookProfiles, signedHeaders, type WebhookProfiles } from './delivery/webhook-profile.client';
export { CALLBACKS_CONSUMER_GROUP } from './consume/source-events.consumer';
