import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import type { KafkaBrokerOptions } from '../kafka/kafka-broker-options';
import { KafkaMessageBroker, type KafkaClientSecurity } from '../kafka/kafka-message-broker';
import { MESSAGE_BROKER, type MessageBroker } from '../messaging-port';

/** The broker adapter's options; the module adds the logger. */
export type MessagingModuleOptions = Omit<KafkaBrokerOptions, 'log'>;

/** What a service's Kafka settings hold (KafkaConnectionConfig of @mp/shared-util-config has this shape). */
export interface KafkaConnectionSettings {
  kafkaBrokers: string[];
  kafkaNamespace: string;
  kafkaSecurity: KafkaClientSecurity | null;
  createTopics: boolean;
  partitionsConsumedConcurrently: number;
}

/** The module's options from a service's Kafka settings: the one mapping every service uses, so a new setting is passed in one place. */
export function messagingOptionsFrom(clientId: string, config: KafkaConnectionSettings): MessagingModuleOptions {
  return {
    clientId,
    brokers: config.kafkaBrokers,
    namespace: config.kafkaNamespace,
    security: config.kafkaSecurity,
    createTopics: config.createTopics,
    partitionsConsumedConcurrently: config.partitionsConsumedConcurrently,
  };
}

@Injectable()
class BrokerShutdown implements OnApplicationShutdown {
  constructor(@Inject(MESSAGE_BROKER) private readonly broker: MessageBroker) {}

  async onApplicationShutdown(): Promise<void> {
    await this.broker.disconnect();
  }
}

/** Provides the messaging port (MESSAGE_BROKER), connected before the app starts and closed on shutdown. */
@Module({})
export class MessagingModule {
  static forRootAsync(options: { inject: unknown[]; useFactory: (...args: never[]) => MessagingModuleOptions }): DynamicModule {
    return {
      module: MessagingModule,
      global: true,
      providers: [
        {
          provide: MESSAGE_BROKER,
          inject: options.inject as never[],
          useFactory: async (...args: never[]) => {
            const settings = options.useFactory(...args);
            const logger = new Logger('Kafka');
            const broker = new KafkaMessageBroker({
              ...settings,
              log: (level, message) => (level === 'info' ? logger.log(message) : logger[level](message)),
            });
            await broker.connect();
            return broker;
          },
        },
        BrokerShutdown,
      ],
      exports: [MESSAGE_BROKER],
    };
  }
}
