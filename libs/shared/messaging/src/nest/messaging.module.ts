import { Inject, Injectable, Logger, Module, type DynamicModule, type OnApplicationShutdown } from '@nestjs/common';
import { KafkaMessageBroker, type KafkaClientSecurity } from '../kafka/kafka-message-broker';
import { MESSAGE_BROKER, type MessageBroker } from '../messaging-port';

export interface MessagingModuleOptions {
  clientId: string;
  brokers: string[];
  namespace: string;
  /** The service's own principal (SASL over TLS); null on a loopback PLAINTEXT broker. */
  security?: KafkaClientSecurity | null;
  /** false: check at boot that the topics exist, never create one (KAFKA_CREATE_TOPICS). */
  createTopics?: boolean;
  /** KafkaBrokerOptions.partitionsConsumedConcurrently. */
  partitionsConsumedConcurrently?: number;
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
              clientId: settings.clientId,
              brokers: settings.brokers,
              namespace: settings.namespace,
              security: settings.security,
              createTopics: settings.createTopics,
              partitionsConsumedConcurrently: settings.partitionsConsumedConcurrently,
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
