/**
 * Goal: the dispatcher decodes only the event types its routing table makes callbacks of, and a
 * routing table that names a type its handlers do not declare (so the port would pass it over,
 * and the callback would silently never be sent) stops the service at boot. Method: the boot
 * check on a broker that records the topics it is asked for.
 */
import 'reflect-metadata';
import { CALLBACK_ROUTES, type CallbackRoute } from '@mp/callbacks-domain';
import { PAYMENTS_TOPICS } from '@mp/contracts-payments';
import type { MessageBroker, TopicSpec } from '@mp/shared-messaging';
import type { CallbacksSettings } from '../callbacks-settings';
import { CallbackTopics } from './source-events.consumer';

function bootWith(routes: readonly CallbackRoute[]): { boot: Promise<void>; ensured: TopicSpec[] } {
  const ensured: TopicSpec[] = [];
  const broker = { ensureTopics: async (topics: TopicSpec[]) => void ensured.push(...topics) } as unknown as MessageBroker;
  const settings = { topicPartitions: 3 } as CallbacksSettings;
  return { boot: new CallbackTopics(broker, settings, routes).onApplicationBootstrap(), ensured };
}

describe('the callback dispatcher at boot', () => {
  it('accepts the routing table its handlers declare and creates the topics it reads', async () => {
    const { boot, ensured } = bootWith(CALLBACK_ROUTES);
    await boot;
    expect(ensured.map((spec) => spec.topic).sort()).toEqual(['disputes.events', 'payments.order.events', 'withdrawals.events']);
  });

  it('refuses a route of an event type its handlers do not declare', async () => {
    const created: CallbackRoute = {
      topic: PAYMENTS_TOPICS.orderEvents,
      eventType: 'PaymentOrderCreated',
      callbackType: 'payment.succeeded',
      intentOf: CALLBACK_ROUTES[0].intentOf,
    };
    await expect(bootWith([...CALLBACK_ROUTES, created]).boot).rejects.toThrow(
      'callback routes name events no @ConsumeTopicInBatches handler declares: payments.order.events PaymentOrderCreated',
    );
  });
});
