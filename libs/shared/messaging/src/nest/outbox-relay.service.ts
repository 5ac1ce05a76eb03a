import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { MESSAGE_BROKER, type MessageBroker } from '../messaging-port';
import { OutboxRelay, type OutboxRelayOptions } from '../postgres/outbox-relay';

export const OUTBOX_RELAY_OPTIONS = Symbol('OUTBOX_RELAY_OPTIONS');

export type OutboxRelaySettings = Pick<OutboxRelayOptions, 'connectionString' | 'batchSize' | 'pollIntervalMs' | 'isTransientTopic'>;

/** Runs the service's outbox relay for the lifetime of the app. */
@Injectable()
export class OutboxRelayService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('OutboxRelay');
  private readonly relay: OutboxRelay;

  constructor(@Inject(MESSAGE_BROKER) broker: MessageBroker, @Inject(OUTBOX_RELAY_OPTIONS) settings: OutboxRelaySettings) {
    this.relay = new OutboxRelay(broker, {
      ...settings,
      log: (level, message) => (level === 'info' ? this.logger.log(message) : this.logger[level](message)),
    });
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.relay.start();
  }

  async onApplicationShutdown(): Promise<void> {
    await this.relay.stop();
  }
}
