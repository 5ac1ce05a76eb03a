import { Controller, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { PAYMENTS_TOPICS } from '@mp/contracts-payments';
import { ConsumeTopicInBatches, MESSAGE_BROKER, type MessageBroker, type MessagingTransportOptions, type ReceivedMessage } from '@mp/shared-messaging';
import { PAYMENTS_SETTINGS, type PaymentsSettings } from '../payments-settings';
import { PaymentCommandIntake } from './payment-command.intake';
import { ensureCatalogTopics } from '@mp/contracts-topics';

/** Every payments replica joins one group, so each command is handled by one replica at a time. */
export const PAYMENTS_COMMANDS_GROUP = 'payments.commands-handler';

/** How the payments app connects its consumers (`app.connectMicroservice`). */
export const PAYMENTS_CONSUMERS: MessagingTransportOptions = { groupId: PAYMENTS_COMMANDS_GROUP, startFrom: 'earliest' };

/** Commands from the gateway. The inbox, ordering and error policy are the intake's and the port's. */
@Controller()
export class PaymentCommandConsumer {
  constructor(private readonly intake: PaymentCommandIntake) {}

  /** Commands fetched together share one transaction (see PaymentCommandIntake.handleAll). */
  @ConsumeTopicInBatches(PAYMENTS_TOPICS.commands)
  handle(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.intake.handleAll(messages.map((message) => message.envelope));
  }
}

/** The topics payments writes to and reads from exist before its consumers join or its relay publishes. */
@Injectable()
export class PaymentsTopics implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(PAYMENTS_SETTINGS) private readonly settings: PaymentsSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await ensureCatalogTopics(this.broker, 'payments', this.settings.commandPartitions);
  }
}
