import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { PAYMENTS_MIGRATIONS, PaymentsModule, PAYMENTS_INTERNAL_ACCESS } from '@mp/payments-infrastructure';
import { ServiceAuthModule } from '@mp/shared-service-auth';
import { serviceDatabaseOptions } from '@mp/shared-data-access-postgres';
import { HealthModule } from '@mp/shared-health';
import { MessagingModule, messagingOptionsFrom } from '@mp/shared-messaging';
import { MetricsModule } from '@mp/shared-metrics';
import type { PaymentsConfig } from './payments.config';

@Module({})
export class AppModule {
  static forRoot(config: PaymentsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // Every internal route checks the caller's service token and allow-list; the issuer signs this service's own calls.
        ServiceAuthModule.forRoot(config.serviceAuth, PAYMENTS_INTERNAL_ACCESS),
        TypeOrmModule.forRoot(
          serviceDatabaseOptions({
            url: config.databaseUrl,
            poolMax: config.databasePoolMax,
            preparedStatementsMax: config.databasePreparedStatementsMax,
            migrations: PAYMENTS_MIGRATIONS,
          }),
        ),
        HealthModule.forRoot({ consumerLagMax: config.consumerLagMax, healthCheckTimeoutMs: config.healthCheckTimeoutMs }),
        MessagingModule.forRootAsync({
          inject: [],
          useFactory: () => messagingOptionsFrom('payments', config),
        }),
        PaymentsModule.forRoot({
          ...config,
          payerPageBaseUrl: config.publicBaseUrl,
          outbox: { connectionString: config.databaseListenUrl, batchSize: 100, pollIntervalMs: 1_000 },
        }),
        MetricsModule.forRoot({ service: 'payments', outbox: true, serveOnAppPort: true }),
      ],
    };
  }
}
