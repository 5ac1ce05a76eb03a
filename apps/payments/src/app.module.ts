import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PAYMENTS_MIGRATIONS, PaymentsModule } from '@mp/payments-infrastructure';
import { MessagingModule } from '@mp/shared-messaging';
import type { PaymentsConfig } from './payments.config';

@Module({})
export class AppModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url: config.databaseUrl,
          migrations: PAYMENTS_MIGRATIONS,
          migrationsRun: true,
          migrationsTransactionMode: 'each',
          synchronize: false,
          extra: { max: config.databasePoolMax, connectionTimeoutMillis: 5_000 },
          retryAttempts: 10,
          retryDelay: 1_000,
        }),
        MessagingModule.forRootAsync({
          inject: [],
          useFactory: () => ({ clientId: 'payments', brokers: config.kafkaBrokers, namespace: config.kafkaNamespace }),
        }),
        PaymentsModule.forRoot({
          payerPageBaseUrl: config.publicBaseUrl,
          crashAfterCommitOf: config.crashAfterCommitOf,
          commandPartitions: config.commandPartitions,
          outbox: { connectionString: config.databaseUrl, batchSize: 100, pollIntervalMs: 1_000 },
        }),
      ],
    };
  }
}
