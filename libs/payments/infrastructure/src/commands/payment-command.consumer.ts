import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { GATEWAY_REPLIES_TOPIC, PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { MESSAGE_BROKER, type MessageBroker, type Subscription } from '@mp/shared-messaging';
import { PAYMENTS_SETTINGS, type PaymentsSettings } from '../payments-settings';
import { PaymentCommandHandler } from './payment-command.handler';

/** Every payments replica joins one group, so each command is handled by one replica at a time. */
export const PAYMENTS_COMMANDS_GROUP = 'payments.commands-handler';

@Injectable()
export class PaymentCommandConsumer implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(PaymentCommandConsumer.name);
  private subscription: Subscription | null = null;

  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
    private readonly handler: PaymentCommandHandler,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await this.broker.ensureTopics([
      { topic: PAYMENTS_TOPICS.commands, partitions: this.settings.commandPartitions },
      { topic: PAYMENTS_TOPICS.orderEvents, partitions: this.settings.commandPartitions },
      { topic: GATEWAY_REPLIES_TOPIC, partitions: 1 },
    ]);
    this.subscription = await this.broker.subscribe({
      groupId: PAYMENTS_COMMANDS_GROUP,
      topics: [PAYMENTS_TOPICS.commands],
      startFrom: 'earliest',
      handler: (message) => this.handler.handle(message.envelope),
    });
    await this.subscription.ready;
    this.logger.log(`consuming ${PAYMENTS_TOPICS.commands}`);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }
}
