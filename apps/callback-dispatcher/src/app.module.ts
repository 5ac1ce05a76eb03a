import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CALLBACKS_MIGRATIONS, CallbacksModule, registerCallbackMetrics, CALLBACKS_INTERNAL_ACCESS } from '@mp/callbacks-infrastructure';
import { ServiceAuthModule } from '@mp/shared-service-auth';
import { serviceDatabaseOptions } from '@mp/shared-data-access-postgres';
import { HealthModule } from '@mp/shared-health';
import { MessagingModule, messagingOptionsFrom } from '@mp/shared-messaging';
import { MetricsModule } from '@mp/shared-metrics';
import type { CallbackDispatcherConfig } from './callback-dispatcher.config';

@Module({})
export class AppModule {
  static forRoot(config: CallbackDispatcherConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // Every internal route checks the caller's service token and allow-list; the issuer signs this service's own calls.
        ServiceAuthModule.forRoot(config.serviceAuth, CALLBACKS_INTERNAL_ACCESS),
        TypeOrmModule.forRoot(
          serviceDatabaseOptions({
            url: config.databaseUrl,
            poolMax: config.databasePoolMax,
            preparedStatementsMax: config.databasePreparedStatementsMax,
            migrations: CALLBACKS_MIGRATIONS,
          }),
        ),
        HealthModule.forRoot({ consumerLagMax: config.consumerLagMax, healthCheckTimeoutMs: config.healthCheckTimeoutMs }),
        MessagingModule.forRootAsync({
          inject: [],
          useFactory: () => messagingOptionsFrom(`callbacks-${config.instanceId}`, config),
        }),
        CallbacksModule.forRoot({ ...config, topicPartitions: config.commandPartitions }),
        MetricsModule.forRoot({ service: 'callback-dispatcher', outbox: false, serveOnAppPort: true, domainMetrics: registerCallbackMetrics }),
      ],
    };
  }
}
