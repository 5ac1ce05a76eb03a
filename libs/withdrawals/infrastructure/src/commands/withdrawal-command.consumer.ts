import { Controller, Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import { Payload } from '@nestjs/microservices';
import { WITHDRAWALS_TOPICS } from '@mp/contracts-withdrawals';
import { ConsumeTopicInBatches, MESSAGE_BROKER, type MessageBroker, type MessagingTransportOptions, type ReceivedMessage } from '@mp/shared-messaging';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from '../withdrawals-settings';
import { WithdrawalCommandIntake } from './withdrawal-command.intake';
import { ensureCatalogTopics } from '@mp/contracts-topics';

/** Every withdrawals replica joins one group, so each command is handled by one replica at a time. */
export const WITHDRAWALS_COMMANDS_GROUP = 'withdrawals.commands-handler';

/** How the withdrawals app connects its consumers (`app.connectMicroservice`). */
export const WITHDRAWALS_CONSUMERS: MessagingTransportOptions = { groupId: WITHDRAWALS_COMMANDS_GROUP, startFrom: 'earliest' };

/** Commands from the gateway. The inbox, ordering and error policy are the intake's and the port's. */
@Controller()
export class WithdrawalCommandConsumer {
  constructor(private readonly intake: WithdrawalCommandIntake) {}

  /** Commands fetched together share one transaction (see WithdrawalCommandIntake). */
  @ConsumeTopicInBatches(WITHDRAWALS_TOPICS.commands)
  handle(@Payload() messages: ReceivedMessage[]): Promise<void> {
    return this.intake.handleAll(messages.map((message) => message.envelope));
  }
}

/** The topics withdrawals writes to and reads from exist before its consumers join or its relay publishes. */
@Injectable()
export class WithdrawalsTopics implements OnApplicationBootstrap {
  constructor(
    @Inject(MESSAGE_BROKER) private readonly broker: MessageBroker,
    @Inject(WITHDRAWALS_SETTINGS) private readonly settings: WithdrawalsSettings,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    await ensureCatalogTopics(this.broker, 'withdrawals', this.settings.commandPartitions);
  }
}
