import { EventStoreAnchoring, InternalEventAnchorsController } from '@mp/shared-command-handling';
import {
  MessagingEventHashChain1700000060380,
  MessagingOutboxDeletedOnPublish1700000037100,
  MessagingSchema1700000000000,
  MessagingUnreadIndexes1700000030000,
} from '@mp/shared-messaging';
import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { CALLBACK_ROUTES, type CallbackRoute } from '@mp/callbacks-domain';
import { InternalErrorFilter } from '@mp/shared-nest-http';
import { CALLBACKS_SETTINGS, CLOCK, OffsetClock, type CallbacksSettings } from './callbacks-settings';
import { CALLBACK_ROUTES_TOKEN, CallbackTopics, SourceEventsConsumer } from './consume/source-events.consumer';
import { CallbackSender } from './delivery/callback-sender';
import { DeliveryWorker, WEBHOOK_PROFILES } from './delivery/delivery.worker';
import { DestinationGuard, type Lookup } from './delivery/ssrf-guard';
import { GatewayWebhookProfiles } from './delivery/webhook-profile.client';
import { InternalCallbacksController } from './http/internal-callbacks.controller';
import { CallbacksAwaitingUrl1700000050000 } from './persistence/awaiting-url.migration';
import { CallbacksDeliveryEvents1700000070000 } from './persistence/delivery-events.migration';
import { CallbacksSchema1700000004000 } from './persistence/callbacks-schema.migration';
import { CallbacksFairClaiming1700000005000 } from './persistence/fair-claiming.migration';
import { CallbacksMerchantWebhooks1700000032000 } from './persistence/merchant-webhooks.migration';
import { CallbacksUnreadIndexes1700000030100 } from './persistence/unread-indexes.migration';

/** Migrations of the dispatcher's database, in order. */
export const CALLBACKS_MIGRATIONS = [
  CallbacksSchema1700000004000,
  CallbacksFairClaiming1700000005000,
  CallbacksUnreadIndexes1700000030100,
  CallbacksMerchantWebhooks1700000032000,
  CallbacksAwaitingUrl1700000050000,
  MessagingSchema1700000000000,
  MessagingUnreadIndexes1700000030000,
  MessagingOutboxDeletedOnPublish1700000037100,
  MessagingEventHashChain1700000060380,
  CallbacksDeliveryEvents1700000070000,
];

/**
 * The callbacks bounded context. Needs a TypeORM DataSource and the messaging port from its
 * app, and its consumers connected with `connectCallbackConsumers`. `lookup` replaces DNS (tests map made-up names to addresses; the SSRF guard still checks
 * what they resolve to).
 */
@Module({})
export class CallbacksModule {
  static forRoot(settings: CallbacksSettings, options: { routes?: readonly CallbackRoute[]; lookup?: Lookup } = {}): DynamicModule {
    return {
      module: CallbacksModule,
      controllers: [InternalCallbacksController, SourceEventsConsumer, InternalEventAnchorsController],
      providers: [
        EventStoreAnchoring,
        { provide: CALLBACKS_SETTINGS, useValue: settings },
        { provide: CLOCK, useValue: new OffsetClock() },
        { provide: CALLBACK_ROUTES_TOKEN, useValue: options.routes ?? CALLBACK_ROUTES },
        {
          provide: WEBHOOK_PROFILES,
          inject: [{ token: SERVICE_TOKEN_ISSUER, optional: true }],
          useFactory: (issuer?: ServiceTokenIssuer) =>
            new GatewayWebhookProfiles(settings.gatewayInternalUrl, authorizationFor(issuer, 'gateway'), settings.profileCacheTtlMs),
        },
        {
          provide: CallbackSender,
          useValue: new CallbackSender(
            new DestinationGuard(settings.allowedDestinations),
            settings.attemptTimeoutMs,
            settings.destinationRules,
            options.lookup,
          ),
        },
        { provide: APP_FILTER, useClass: InternalErrorFilter },
        DeliveryWorker,
        CallbackTopics,
      ],
    };
  }
}
