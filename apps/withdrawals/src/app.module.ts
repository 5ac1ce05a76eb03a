import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { serviceDatabaseOptions } from '@mp/shared-data-access-postgres';
import { HealthModule } from '@mp/shared-health';
import { MessagingModule, messagingOptionsFrom } from '@mp/shared-messaging';
import { MetricsModule } from '@mp/shared-metrics';
import { WITHDRAWALS_MIGRATIONS, WithdrawalsModule, registerWithdrawalMetrics, WITHDRAWALS_INTERNAL_ACCESS } from '@mp/withdrawals-infrastructure';
import { ServiceAuthModule } from '@mp/shared-service-auth';
import type { WithdrawalsConfig } from './withdrawals.config';

@Module({})
export class AppModule {
  static forRoot(config: WithdrawalsConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // Every internal route checks the caller's service token and allow-list; the issuer signs this service's own calls.
        ServiceAuthModule.forRoot(config.serviceAuth, WITHDRAWALS_INTERNAL_ACCESS),
        TypeOrmModule.forRoot(
          serviceDatabaseOptions({
            url: config.databaseUrl,
            poolMax: config.databasePoolMax,
            preparedStatementsMax: config.databasePreparedStatementsMax,
            migrations: WITHDRAWALS_MIGRATIONS,
          }),
        ),
        HealthModule.forRoot({ consumerLagMax: config.consumerLagMax, healthCheckTimeoutMs: config.healthCheckTimeoutMs }),
        MessagingModule.forRootAsync({
          inject: [],
          useFactory: () => messagingOptionsFrom('withdrawals', config),
        }),
        WithdrawalsModule.forRoot({
          ...config,
          outbox: { connectionString: config.databaseListenUrl, batchSize: 100, pollIntervalMs: 1_000 },
        }),
        MetricsModule.forRoot({ service: 'withdrawals', outbox: true, serveOnAppPort: true, domainMetrics: registerWithdrawalMetrics }),
      ],
    };
  }
}
