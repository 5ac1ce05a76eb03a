import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { callbackBodyOf, routeEvent, topicsOf, webhookIdOf, type CallbackRoute } from '@mp/callbacks-domain';
import { MESSAGE_BROKER, PoisonMessageError, type MessageBroker, type ReceivedMessage, type Subscription } from '@mp/shared-messaging';
import { DataSource } from 'typeorm';
import { CALLBACKS_SETTINGS, CLOCK, type CallbacksSettings, type Clock } from '../callbacks-settings';
import { DeliveryWorker, WEBHOOK_PROFILES } from '../delivery/delivery.worker';
import type { WebhookProfiles } from '../delivery/webhook-profile.client';
import { insertDelivery } from '../persistence/delivery.store';

/** Every dispatcher replica joins one group: each event is recorded by one replica at a time. */
export const CALLBACKS_CONSUMER_GROUP = 'callbacks.dispatcher';
export const CALLBACK_ROUTES_TOKEN = Symbol('CALLBACK_ROUTES');

/**
 * Turns the services' outcome events into delivery records (before any attempt), then nudges
 * the worker. The routing table decides which topics are read and which events matter; the
 * delivery's unique keys make a redelivered event a no-op.
 */
@Injectable()
export class SourceEventsConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(SourceEventsConsumer.name);
  private subscription: Subscription | null = null;

  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(CALLBACKS_SETTINGS) private readonly settings: CallbacksSettings,
    @Inject(CALLBACK_ROUTES_TOKEN) private readonly routes: readonly CallbackRoute[],
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(WEBHOOK_PROFILES) private readonly profiles: WebhookProfiles,
    private readonly dataSource: DataSource,
    private readonly worker: DeliveryWorker,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    const topics = topicsOf(this.routes);
    // The dispatcher may start before the producers: the topics must exist before the group joins.
    await this.broker.ensureTopics(topics.map((topic) => ({ topic, partitions: this.settings.topicPartitions })));
    this.subscription = await this.broker.subscribe({ groupId: CALLBACKS_CONSUMER_GROUP, topics, startFrom: 'earliest', handler: (message) => this.handle(message) });
    await this.subscription.ready;
    this.logger.log(`consuming ${topics.join(', ')}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  async handle(message: ReceivedMessage): Promise<void> {
    const { envelope } = message;
    const routed = routeEvent(this.routes, message.topic, envelope);
    if (routed.kind === 'ignored') return;
    if (routed.kind === 'malformed') throw new PoisonMessageError(routed.reason);
    const { intent } = routed;
    let targetUrl: string | null = intent.target.kind === 'url' ? intent.target.url : null;
    if (intent.target.kind === 'merchant_default') {
      // Withdrawal-style callbacks go to the merchant's default URL as it is when the event arrives.
      targetUrl = (await this.profiles.find(intent.merchantId))?.default_callback_url ?? null;
      if (!targetUrl) {
        this.logger.warn(`${envelope.type} ${envelope.id}: merchant ${intent.merchantId} has no default callback URL; no callback`);
        return;
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
