import { Module, type DynamicModule } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { GATEWAY_MIGRATIONS, GatewayApiModule, GATEWAY_INTERNAL_ACCESS } from '@mp/gateway-api';
import { ConsoleBffModule } from '@mp/console-bff';
import { ServiceAuthModule } from '@mp/shared-service-auth';
import { serviceDatabaseOptions } from '@mp/shared-data-access-postgres';
import { HealthModule } from '@mp/shared-health';
import { MessagingModule } from '@mp/shared-messaging';
import { MetricsModule } from '@mp/shared-metrics';
import type { GatewayConfig } from './gateway.config';

@Module({})
export class AppModule {
  static forRoot(config: GatewayConfig): DynamicModule {
    return {
      module: AppModule,
      imports: [
        // Every internal route checks the caller's service token and allow-list; the issuer signs this service's own calls.
        ServiceAuthModule.forRoot(config.serviceAuth, GATEWAY_INTERNAL_ACCESS),
        TypeOrmModule.forRoot(
          serviceDatabaseOptions({
            url: config.databaseUrl,
            poolMax: config.databasePoolMax,
            preparedStatementsMax: config.databasePreparedStatementsMax,
            migrations: GATEWAY_MIGRATIONS,
          }),
        ),
        HealthModule.forRoot({ consumerLagMax: config.consumerLagMax, healthCheckTimeoutMs: config.healthCheckTimeoutMs }),
        MessagingModule.forRootAsync({
          inject: [],
          useFactory: () => ({
            clientId: `gateway-${config.instanceId}`,
            brokers: config.kafkaBrokers,
            namespace: config.kafkaNamespace,
            security: config.kafkaSecurity,
          }),
        }),
        GatewayApiModule.forRoot(config),
        MetricsModule.forRoot({ service: 'gateway', outbox: false, serveOnAppPort: false }),
        ConsoleBffModule.forRoot({
          ...config.console,
          secretsKeyring: config.secretsKeyring,
          serviceUrls: {
            payments: config.paymentsInternalUrl,
            ledger: config.ledgerInternalUrl,
            disputes: config.disputesInternalUrl,
            withdrawals: config.withdrawalsInternalUrl,
            callbacks: config.callbacksInternalUrl,
          },
          healthCheckTimeoutMs: config.healthCheckTimeoutMs,
        }),
      ],
    };
  }
}
