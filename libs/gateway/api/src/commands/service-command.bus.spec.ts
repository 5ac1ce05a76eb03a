import { PAYMENT_COMMAND_TYPES } from '@mp/contracts-payments';
import type { MessageBroker } from '@mp/shared-messaging';
import { DomainError } from '@mp/shared-util-errors';
import type { GatewaySettings } from '../gateway-settings';
import { ServiceCommandBus, PAYMENTS_COMMAND_ROUTE } from './service-command.bus';

/**
 * A broker that is down: the producer keeps retrying and publish neither resolves nor rejects
 * for longer than the command timeout (what a Kafka restart looked like to the gateway in the
 * chaos run, docs/operations/chaos.md). Only the publish path matters here.
 */
function brokerThatIsDown(): { broker: MessageBroker; failPublish: (error: Error) => void } {
  let failPublish: (error: Error) => void = () => undefined;
  const publishing = new Promise<void>((_, reject) => (failPublish = reject));
  return { broker: { publish: () => publishing } as unknown as MessageBroker, failPublish: (error) => failPublish(error) };
}

describe('ServiceCommandBus while the broker is down', () => {
  const settings = { instanceId: 'unit', commandTimeoutMs: 50 } as GatewaySettings;
  const options = { key: 'mrc_1:A-1', subject: 'merchant:mrc_1/order:A-1', correlationId: 'req_1' };

  it('answers 503 SERVICE_UNAVAILABLE at the command timeout even while the publish is still retrying, and leaves no rejection unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      const { broker, failPublish } = brokerThatIsDown();
      const bus = new ServiceCommandBus(broker, settings);
      const startedAt = Date.now();
      const outcome = bus.send(PAYMENTS_COMMAND_ROUTE, PAYMENT_COMMAND_TYPES.createIncomingPayment, {}, options).then(
        () => 'answered',
        (error: unknown) => error,
      );
      const raced = await Promise.race([outcome, new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_000))]);
      expect(raced).toBeInstanceOf(DomainError);
      expect((raced as DomainError).code).toBe('SERVICE_UNAVAILABLE');
      expect(Date.now() - startedAt).toBeLessThan(1_000);
      // The producer gives up later: that failure must not end the process either.
      failPublish(new Error('KafkaJSNumberOfRetriesExceeded'));
      // A fixed window, not a condition: an unhandled rejection would be reported within it.
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
