import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER, APP_INTERCEPTOR, APP_PIPE } from '@nestjs/core';
import { SecretBox, type SecretKeyring } from '@mp/access-domain';
import {
  AccessConsole1700000040000,
  AccessCredentialLifetimes1700000050200,
  AccessDefaultReturnUrl1700000050390,
  AccessOperatorIdentity1700000050000,
  AccessRequestSignatures1700000050100,
  AccessSchema1700000002000,
  AccessTrustBoundaries1700000006200,
  AccessSandboxMerchants1700000032100,
  AccessMerchantList1700000033100,
  AccessWebhookSecretRotation1700000004500,
  BackofficeAuditStore,
  BackofficeCredentialStore,
  ConsoleKeyStore,
  MerchantCredentialStore,
  RequestSignatureStore,
  WebhookSecretStore,
} from '@mp/access-infrastructure';
import { OffsetClock } from '@mp/shared-util-clock';
import { DataSource } from 'typeorm';
import { MerchantSignatureGuard } from './auth/merchant-signature.guard';
import { AccessOperatorController } from './backoffice/access-operator.controller';
import { AgentController } from './backoffice/agent.controller';
import { AgentCredentialsOperatorController } from './backoffice/agent-credentials-operator.controller';
import { ConsoleKeysOperatorController } from './backoffice/console-keys-operator.controller';
import { BackofficeAuditInterceptor } from './backoffice/backoffice-audit.interceptor';
import { BackofficeGuard } from './backoffice/backoffice.guard';
import { OperatorController } from './backoffice/operator.controller';
import { SandboxOperatorController } from './backoffice/sandbox-operator.controller';
import { AgentDisputesController, OperatorDisputesController } from './disputes/dispute-review.controllers';
import { DisputesClient } from './disputes/disputes.client';
import { CLOCK, GATEWAY_SETTINGS, type GatewaySettings } from './gateway-settings';
import { CallbacksBackofficeController } from './callbacks/callbacks-backoffice.controller';
import { CallbacksClient } from './callbacks/callbacks.client';
import { ErrorResponseFilter } from './http/error-response.filter';
import { GatewayRequestPipe } from './http/gateway-request.pipe';
import { LedgerReadClient } from './merchant/ledger-read.client';
import { PayerPageController } from './payer-page/payer-page.controller';
import { ServiceCommandBus } from './commands/service-command.bus';
import { PaymentsClient } from './payments/payments.client';
import { WithdrawalsOperatorController } from './backoffice/withdrawals-operator.controller';
import { ApprovalsOperatorController } from './backoffice/approvals-operator.controller';
import { EventAnchorsClient, EventAnchorsOperatorController } from './backoffice/event-anchors-operator.controller';
import { WithdrawalsReadClient } from './withdrawals/withdrawals-read.client';
import { CallbackAllowListController } from './callback-destinations/callback-allow-list.controller';
import { GatewayCallbackAllowLists1700000020100 } from './callback-destinations/callback-allow-list.migration';
import { CallbackDestinationPolicy } from './callback-destinations/callback-destination.policy';
import { GatewayRateLimitBuckets1700000020000 } from './rate-limit/rate-limit.migration';
import { GatewayRateLimitLeases1700000021000 } from './rate-limit/rate-limit-lease.migration';
import { MerchantRateLimitController } from './rate-limit/merchant-rate-limit.controller';
import { MerchantRateLimitInterceptor, RateLimiter } from './rate-limit/rate-limiter';
import { MERCHANT_API_CONTROLLERS } from './openapi/merchant-api.controllers';
import { MerchantApiDocsController } from './openapi/merchant-api-docs.controller';

/** Migrations of the gateway database (merchant identities and credentials). */
export const GATEWAY_MIGRATIONS = [
  AccessSchema1700000002000,
  AccessWebhookSecretRotation1700000004500,
  AccessTrustBoundaries1700000006200,
  GatewayRateLimitBuckets1700000020000,
  GatewayCallbackAllowLists1700000020100,
  GatewayRateLimitLeases1700000021000,
  AccessSandboxMerchants1700000032100,
  AccessMerchantList1700000033100,
  AccessConsole1700000040000,
  AccessOperatorIdentity1700000050000,
  AccessRequestSignatures1700000050100,
  AccessCredentialLifetimes1700000050200,
  AccessDefaultReturnUrl1700000050390,
];

/** The merchant-facing /v2 API and the payer page. Needs a TypeORM DataSource and the messaging port. */
@Module({})
export class GatewayApiModule {
  static forRoot(settings: GatewaySettings & { secretsKeyring: SecretKeyring }): DynamicModule {
    return {
      module: GatewayApiModule,
      controllers: [
        ...MERCHANT_API_CONTROLLERS,
        MerchantApiDocsController,
        PayerPageController,
        OperatorController,
        CallbacksBackofficeController,
        AgentController,
        AgentCredentialsOperatorController,
        AgentDisputesController,
        OperatorDisputesController,
        WithdrawalsOperatorController,
        AccessOperatorController,
        ApprovalsOperatorController,
        CallbackAllowListController,
        MerchantRateLimitController,
        SandboxOperatorController,
        ConsoleKeysOperatorController,
        EventAnchorsOperatorController,
      ],
      providers: [
        { provide: GATEWAY_SETTINGS, useValue: settings },
        // Only tests move it (TEST_CLOCK_ENABLED, on the internal listener); otherwise it is the system clock.
        { provide: CLOCK, useValue: new OffsetClock() },
        { provide: BackofficeAuditStore, inject: [DataSource], useFactory: (dataSource: DataSource) => new BackofficeAuditStore(dataSource) },
        { provide: APP_INTERCEPTOR, useClass: BackofficeAuditInterceptor },
        // Every request body and query is read and validated here, once for all routes.
        { provide: APP_PIPE, useClass: GatewayRequestPipe },
        {
          provide: MerchantCredentialStore,
          inject: [DataSource],
          useFactory: (dataSource: DataSource) =>
            new MerchantCredentialStore(dataSource, new SecretBox(settings.secretsKeyring), settings.credentialCacheTtlMs),
        },
        {
          provide: WebhookSecretStore,
          inject: [DataSource],
          useFactory: (dataSource: DataSource) => new WebhookSecretStore(dataSource, new SecretBox(settings.secretsKeyring)),
        },
        CallbacksClient,
        EventAnchorsClient,
        { provide: BackofficeCredentialStore, inject: [DataSource], useFactory: (dataSource: DataSource) => new BackofficeCredentialStore(dataSource) },
        { provide: ConsoleKeyStore, inject: [DataSource], useFactory: (dataSource: DataSource) => new ConsoleKeyStore(dataSource) },
        { provide: RequestSignatureStore, inject: [DataSource], useFactory: (dataSource: DataSource) => new RequestSignatureStore(dataSource) },
        MerchantSignatureGuard,
        BackofficeGuard,
        ServiceCommandBus,
        PaymentsClient,
        DisputesClient,
        LedgerReadClient,
        WithdrawalsReadClient,
        { provide: APP_FILTER, useClass: ErrorResponseFilter },
        RateLimiter,
        CallbackDestinationPolicy,
        { provide: APP_INTERCEPTOR, useClass: MerchantRateLimitInterceptor },
      ],
    };
  }
}
