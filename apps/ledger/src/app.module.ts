import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LEDGER_MIGRATIONS, LedgerModule, registerLedgerMetrics, LEDGER_INTERNAL_ACCESS } from '@mp/ledger-infrastructure';
import { ServiceAuthModule } from '@mp/shared-service-auth';
import { serviceDatabaseOptions } from '@mp/shared-data-access-postgres';
import { HealthModule } from '@mp/shared-health';
import { MessagingModule, messagingOptionsFrom } from '@mp/shared-messaging';
import { MetricsModule } from '@mp/shared-metrics';
import type { LedgerConfig } from './ledger.config';

@Module({})
export class AppModule {
  static forRoot(config: LedgerConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // Every internal route checks the caller's service token and allow-list; the issuer signs this service's own calls.
        ServiceAuthModule.forRoot(config.serviceAuth, LEDGER_INTERNAL_ACCESS),
        TypeOrmModule.forRoot(
          serviceDatabaseOptions({
            url: config.databaseUrl,
            poolMax: config.databasePoolMax,
            preparedStatementsMax: config.databasePreparedStatementsMax,
            migrations: LEDGER_MIGRATIONS,
          }),
        ),
        HealthModule.forRoot({ consumerLagMax: config.consumerLagMax, healthCheckTimeoutMs: config.healthCheckTimeoutMs }),
        MessagingModule.forRootAsync({
          inject: [],
          useFactory: () => messagingOptionsFrom('ledger', config),
        }),
        LedgerModule.forRoot(config),
        MetricsModule.forRoot({ service: 'ledger', outbox: false, serveOnAppPort: true, domainMetrics: registerLedgerMetrics }),
      ],
    };
  }
}
