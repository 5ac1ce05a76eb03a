import { Controller, Inject, Injectable, type INestApplication, type OnApplicationBootstrap } from '@nestjs/common';
import type { CustomStrategy } from '@nestjs/microservices';
import { Payload } from '@nestjs/microservices';
import { CALLBACK_ROUTES, callbackBodyOf, eventTypesOf, routeEvent, webhookIdOf, type CallbackRoute } from '@mp/callbacks-domain';
import { PAYMENT_ORDER_EXTERNAL_EVENT_CONTRACT, PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { DISPUTE_EXTERNAL_EVENT_CONTRACT, DISPUTES_TOPICS } from '@mp/contracts-disputes';
import { WITHDRAWAL_EXTERNAL_EVENT_CONTRACT, WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';
import { MessageIntake, readEventPayload, type EventContract } from '@mp/shared-command-handling';
import {
  ConsumeTopicInBatches,
  MESSAGE_BROKER,
  MessagingTransportStrategy,
  PoisonMessageError,
  type MessageBroker,
  type MessageEnvelope,
  type MessagingTransportOptions,
  type ReceivedMessage,
} from '@mp/shared-messaging';
import { DataSource } from 'typeorm';
import { CALLBACKS_SETTINGS, CLOCK, type CallbacksSettings, type Clock } from '../callbacks-settings';
import { DeliveryWorker, WEBHOOK_PROFILES } from '../delivery/delivery.worker';
import type { WebhookProfiles } from '../delivery/webhook-profile.client';
import { insertDeliveries, type NewDelivery } from '../persistence/delivery.store';
import { ensureCatalogTopics } from '@mp/contracts-topics';

/** Every dispatcher replica joins one group: each event is recorded by one replica at a time. */
export const CALLBACKS_CONSUMER_GROUP = 'callbacks.dispatcher';
export const CALLBACK_ROUTES_TOKEN = Symbol('CALLBACK_ROUTES');

/**
 * How the dispatcher connects its consumers (`app.connectMicroservice`). A pay-in's creation,
 * assignment and payer report go on payments.order.progress, which it does not read; a 20 ms fetch
 * linger keeps it to about 50 fetches a second under load, well inside a callback's 150 ms budget.
 */
export const CALLBACK_CONSUMERS: MessagingTransportOptions = { groupId: CALLBACKS_CONSUMER_GROUP, startFrom: 'earliest', fetchLingerMs: 20 };

/** By topic, what its events look like (libs/contracts): an event a route names is checked against it before routing. */
const CONTRACT_BY_TOPIC: ReadonlyMap<string, EventContract> = new Map<string, EventContract>([
  [PAYMENTS_TOPICS.orderEvents, PAYMENT_ORDER_EXTERNAL_EVENT_CONTRACT],
  [WITHDRAWALS_TOPICS.events, WITHDRAWAL_EXTERNAL_EVENT_CONTRACT],
  [DISPUTES_TOPICS.events, DISPUTE_EXTERNAL_EVENT_CONTRACT],
]);

/** The topics this service has @ConsumeTopicInBatches handlers for; a route on any other would never be read. */
const CONSUMED_TOPICS: readonly string[] = [...CONTRACT_BY_TOPIC.keys()];

/**
 * An event of `topic` as routing reads it: one no route names is left alone (null); one a route
 * names must satisfy its contract's payload class, else it is poison (PoisonMessageError naming
 * the event and the bad fields).
 */
export function routableEvent(routes: readonly CallbackRoute[], topic: string, envelope: MessageEnvelope): MessageEnvelope | null {
  if (!routes.some((route) => route.topic === topic && route.eventType === envelope.type)) return null;
  const contract = CONTRACT_BY_TOPIC.get(topic);
  if (!contract) throw new PoisonMessageError(`no contract for the events of topic ${topic}`);
  readEventPayload(envelope, contract);
  return envelope;
}

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
    const unconsumed = this.routes.filter(
      (route) => !CONSUMED_TOPICS.includes(route.topic) || !eventTypesOf(CALLBACK_ROUTES, route.topic).includes(route.eventType),
    );
    if (unconsumed.length > 0)
      throw new Error(
        `callback routes name events no @ConsumeTopicInBatches handler declares: ${unconsumed.map((route) => `${route.topic} ${route.eventType}`).join(', ')}`,
      );
    await ensureCatalogTopics(this.broker, 'callbacks', this.settings.topicPartitions);
  }
}

/**
 * Turns the services' outcome events into delivery records (before any attempt), then nudges
 * the worker. The routing table decides which events matter. Events fetched together are
 * recorded in one statement through the shared intake (MessageIntake, no inbox: the delivery's
 * unique keys make a redelivered event a no-op), and the new deliveries' events in one more, in
 * the intake's transaction (docs/decisions/callback-delivery-events.md). A
 * malformed event, or one with nowhere to go, is poison: in a batch it sends the port to one by
 * one, and alone it is dead-lettered. Every topic the routing table names has a handler here.
 */
@Controller()
export class SourceEventsConsumer {
  /** By topic: a batch is one partition of one topic, and the routing reads the topic. */
  private readonly intakes: ReadonlyMap<string, MessageIntake<NewDelivery>>;

  constructor(
    @Inject(CALLBACK_ROUTES_TOKEN) private readonly routes: readonly CallbackRoute[],
    @Inject(CLOCK) private readonly clock: Clock,
    @Inject(WEBHOOK_PROFILES) private readonly profiles: WebhookProfiles,
    dataSource: DataSource,
    worker: DeliveryWorker,
  ) {
    const intakeOf = (topic: string) =>
      new MessageIntake<NewDelivery>(dataSource, {
        inbox: null,
        read: (envelope) => this.deliveryFor(topic, envelope),
        apply: async (manager, deliveries) => {
          if (
            (await insertDeliveries(
              manager,
              deliveries.map(({ item }) => item),
              this.clock.now(),
            )) > 0
          )
            worker.nudge(true);
        },
      });
    this.intakes = new Map(CONSUMED_TOPICS.map((topic) => [topic, intakeOf(topic)]));
  }

  @ConsumeTopicInBatches(PAYMENTS_TOPICS.orderEvents, routedTypes(PAYMENTS_TOPICS.orderEvents))
  consumePaymentOrderEvent(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.handleAll(messages);
  }

  @ConsumeTopicInBatches(WITHDRAWALS_TOPICS.events, routedTypes(WITHDRAWALS_TOPICS.events))
  consumeWithdrawalEvent(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.handleAll(messages);
  }

  @ConsumeTopicInBatches(DISPUTES_TOPICS.events, routedTypes(DISPUTES_TOPICS.events))
  consumeDisputeEvent(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.handleAll(messages);
  }

  /** Messages of one topic (and partition), as the port hands them over. */
  async handleAll(messages: readonly ReceivedMessage[]): Promise<void> {
    const [first] = messages;
    if (!first) return;
    const intake = this.intakes.get(first.topic);
    if (!intake) throw new PoisonMessageError(`no callback routes read topic ${first.topic}`);
    await intake.handleAll(messages.map((message) => message.envelope));
  }

  /** The delivery an event makes, or null when the routing table makes none of it. */
  private async deliveryFor(topic: string, envelope: MessageEnvelope): Promise<NewDelivery | null> {
    const event = routableEvent(this.routes, topic, envelope);
    const routed = event && routeEvent(this.routes, topic, event);
    if (!routed || routed.kind === 'ignored') return null;
    const { intent } = routed;
    // The attempt signs with the merchant's webhook secrets: their read from the gateway starts
    // now, beside the delivery's recording and claim, and the attempt joins it (or finds it
    // cached) instead of starting it then. A failure here is the attempt's to see and handle.
    if (intent.target.kind === 'url') this.profiles.find(intent.merchantId).catch(() => undefined);
    const targetUrl = intent.target.kind === 'url' ? intent.target.url : await this.merchantDefaultUrl(intent.merchantId);
    const deliveryId = webhookIdOf(envelope.id);
    return { deliveryId, sourceEvent: { id: envelope.id, type: envelope.type, topic }, intent, targetUrl, body: callbackBodyOf(deliveryId, intent) };
  }

  /**
   * Withdrawal-style callbacks go to the merchant's default URL as it is when the event arrives,
   * read past the cache so that a URL the merchant has just set is the one used. A merchant with
   * none (one that polls) gets the delivery kept with no target (''), `awaiting_url` in its
   * delivery log, until it sets one (resumeAwaitingUrl).
   */
  private async merchantDefaultUrl(merchantId: string): Promise<string> {
    return (await this.profiles.find(merchantId, { fresh: true }))?.default_callback_url ?? '';
  }
}
