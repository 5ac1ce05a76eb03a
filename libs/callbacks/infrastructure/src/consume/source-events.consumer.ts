import { Controller, Inject, Injectable, type INestApplication, type OnApplicationBootstrap } from '@nestjs/common';
import type { CustomStrategy } from '@nestjs/microservices';
import { Payload } from '@nestjs/microservices';
import { CALLBACK_ROUTES, callbackBodyOf, eventTypesOf, routeEvent, webhookIdOf, type CallbackRoute } from '@mp/callbacks-domain';
import { PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { DISPUTES_TOPICS } from '@mp/contracts-disputes';
import { WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';
import { ConsumeTopic, MESSAGE_BROKER, MessagingTransportStrategy, PoisonMessageError, type MessageBroker, type MessagingTransportOptions, type ReceivedMessage } from '@mp/shared-messaging';
import { DataSource } from 'typeorm';
import { CALLBACKS_SETTINGS, CLOCK, type CallbacksSettings, type Clock } from '../callbacks-settings';
import { DeliveryWorker, WEBHOOK_PROFILES } from '../delivery/delivery.worker';
import type { WebhookProfiles } from '../delivery/webhook-profile.client';
import { insertDelivery } from '../persistence/delivery.store';

/** Every dispatcher replica joins one group: each event is recorded by one replica at a time. */
export const CALLBACKS_CONSUMER_GROUP = 'callbacks.dispatcher';
export const CALLBACK_ROUTES_TOKEN = Symbol('CALLBACK_ROUTES');

/** How the dispatcher connects its consumers (`app.connectMicroservice`). */
export const CALLBACK_CONSUMERS: MessagingTransportOptions = { groupId: CALLBACKS_CONSUMER_GROUP, startFrom: 'earliest' };

/** The topics this service has @ConsumeTopic handlers for; a route on any other would never be read. */
const CONSUMED_TOPICS: readonly string[] = [PAYMENTS_TOPICS.orderEvents, WITHDRAWALS_TOPICS.events, DISPUTES_TOPICS.events];

/**
 * What the handlers below declare they act on: the event types the routing table makes callbacks
 * of. The port passes over every other type (creation, progress, payments' dispute
 * acknowledgements) before decoding it, so a new pay-in costs the dispatcher no JSON parse.
 */
const routedTypes = (topic: string) => ({ types: eventTypesOf(CALLBACK_ROUTES, topic) });

/**
 * Connects the dispatcher's consumers to the messaging port, as every service does; the caller
 * then runs `app.init()` (topics created) and `app.startAllMicroservices()` (group joined).
 */
export function connectCallbackConsumers(app: INestApplication): void {
  app.connectMicroservice<CustomStrategy>({ strategy: new MessagingTransportStrategy(app.get(MESSAGE_BROKER), CALLBACK_CONSUMERS) });
}

/**
 * The dispatcher may start before the producers: the topics must exist before the group joins.
 * A routing table naming a topic no handler consumes, or an event type the handlers do not
 * declare (so the port would pass it over), is a wiring mistake, refused at boot.
 */
@Injectable()
export class CallbackTopics implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(CALLBACKS_SETTINGS) private readonly settings: CallbacksSettings,
    @Inject(CALLBACK_ROUTES_TOKEN) private readonly routes: readonly CallbackRoute[],
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const unconsumed = this.routes.filter((route) => !CONSUMED_TOPICS.includes(route.topic) || !eventTypesOf(CALLBACK_ROUTES, route.topic).includes(route.eventType));
    if (unconsumed.length > 0) throw new Error(`callback routes name events no @ConsumeTopic handler declares: ${unconsumed.map((route) => `${route.topic} ${route.eventType}`).join(', ')}`);
    await this.broker.ensureTopics(CONSUMED_TOPICS.map((topic) => ({ topic, partitions: this.settings.topicPartitions })));
  }
}

/**
 * Turns the services' outcome events into delivery records (before any attempt), then nudges
 * the worker. The routing table decides which events matter; the delivery's unique keys make
 * a redelivered event a no-op. Every topic the routing table names has a handler here.
 */
@Controller()
export class SourceEventsConsumer {

  constructor(
    @Inject(CALLBACK_ROUTES_TOKEN) private readonly routes: readonly CallbackRoute[],
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(WEBHOOK_PROFILES) private readonly profiles: WebhookProfiles,
    private readonly dataSource: DataSource,
    private readonly worker: DeliveryWorker,
  ) {}

  @ConsumeTopic(PAYMENTS_TOPICS.orderEvents, routedTypes(PAYMENTS_TOPICS.orderEvents))
  consumePaymentOrderEvent(@Payload() message: ReceivedMessage): Promise<void> {
    return this.handle(message);
  }

  @ConsumeTopic(WITHDRAWALS_TOPICS.events, routedTypes(WITHDRAWALS_TOPICS.events))
  consumeWithdrawalEvent(@Payload() message: ReceivedMessage): Promise<void> {
    return this.handle(message);
  }

  @ConsumeTopic(DISPUTES_TOPICS.events, routedTypes(DISPUTES_TOPICS.events))
  consumeDisputeEvent(@Payload() message: ReceivedMessage): Promise<void> {
    return this.handle(message);
  }

  async handle(message: ReceivedMessage): Promise<void> {
    const { envelope } = message;
    const routed = routeEvent(this.routes, message.topic, envelope);
    if (routed.kind === 'ignored') return;
    if (routed.kind === 'malformed') throw new PoisonMessageError(routed.reason);
    const { intent } = routed;
    let targetUrl: string | null = intent.target.kind === 'url' ? intent.target.url : null;
    if (intent.target.kind === 'merchant_default') {
      // Withdrawal-style callbacks go to the merchant's default URL as it is when the event
      // arrives, read past the cache so that a URL the merchant has just set is the one used.
      targetUrl = (await this.profiles.find(intent.merchantId, { fresh: true }))?.default_callback_url ?? null;
      if (!targetUrl) {
        // The gateway refuses withdrawals and disputes while the merchant has no default URL, and
        // a set URL cannot be removed, so this is an outcome accepted before that rule: it goes to
        // the dead letters (npm run dlq), where an operator sees it and can replay it once the
        // merchant has set a URL, instead of being dropped.
        throw new PoisonMessageError(`${envelope.type} ${envelope.id}: merchant ${intent.merchantId} has no default callback URL to report this outcome to`);
      }
    }
    const deliveryId = webhookIdOf(envelope.id);
    const created = await insertDelivery(
      this.dataSource.manager,
      { deliveryId, sourceEvent: { id: envelope.id, type: envelope.type, topic: message.topic }, intent, targetUrl: targetUrl as string, body: callbackBodyOf(deliveryId, intent) },
      this.clock.now(),
    );
    if (created) this.worker.nudge();
  }
}
