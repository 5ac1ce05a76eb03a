import { EventStoreAnchoring, InternalEventAnchorsController } from '@mp/shared-command-handling';
import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import { isGatewayReplyTopic } from '@mp/contracts-payments';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { InternalErrorFilter } from '@mp/shared-nest-http';
import {
  MessagingEventHashChain1700000060380,
  MessagingOutboxDeletedOnPublish1700000037100,
  MessagingSchema1700000000000,
  MessagingUnreadIndexes1700000030000,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  type OutboxRelaySettings,
} from '@mp/shared-messaging';
import { DisputeEventsConsumer } from './commands/dispute-events.consumer';
import { ExpirySweeper } from './commands/expiry-sweeper';
import { SandboxAgent } from './commands/sandbox-agent';
import { PaymentCommandConsumer, PaymentsTopics } from './commands/payment-command.consumer';
import { PaymentCommandIntake } from './commands/payment-command.intake';
import { HttpLedgerHolds, LEDGER_HOLDS } from './ledger/ledger-holds.port';
import { PayerPageLinks } from './payer-pages/payer-page-links';
import { PaymentsSchema1700000001000 } from './persistence/payments-schema.migration';
import { PaymentsDisputeOutcomeAsEvent1700000021000 } from './persistence/dispute-outcome-event.migration';
import { PaymentOrderOpenDisputes1700000011000 } from './persistence/open-disputes.migration';
import { PayoutRecipientAccounts1700000008000 } from './persistence/recipient-accounts.migration';
import { SandboxOrders1700000032000 } from './persistence/sandbox-orders.migration';
import { PaymentAgentList1700000033200 } from './persistence/agent-list.migration';
import { PaymentOrderMetadata1700000039000 } from './persistence/order-metadata.migration';
import { DailyPayInTotals1700000040100 } from './persistence/daily-payin-totals.migration';
import { InternalRecipientAccountsController } from './recipient-accounts/internal-recipient-accounts.controller';
import { RecipientAccountVault } from './recipient-accounts/recipient-account.vault';
import { CLOCK, OffsetClock, PAYMENTS_SETTINGS, type PaymentsSettings } from './payments-settings';
import { InternalOrdersController } from './read-orders/internal-orders.controller';
import { InternalReferenceDataController } from './reference-data/internal-reference-data.controller';

/** Migrations of the payments database, in order. */
export const PAYMENTS_MIGRATIONS = [
  MessagingSchema1700000000000,
  PaymentsSchema1700000001000,
  PayoutRecipientAccounts1700000008000,
  PaymentOrderOpenDisputes1700000011000,
  PaymentsDisputeOutcomeAsEvent1700000021000,
  MessagingUnreadIndexes1700000030000,
  SandboxOrders1700000032000,
  PaymentAgentList1700000033200,
  MessagingOutboxDeletedOnPublish1700000037100,
  PaymentOrderMetadata1700000039000,
  DailyPayInTotals1700000040100,
  MessagingEventHashChain1700000060380,
];

/** The payments bounded context. Needs a TypeORM DataSource and the messaging port from its app. */
@Module({})
export class PaymentsModule {
  static forRoot(settings: PaymentsSettings & { outbox: OutboxRelaySettings; ledgerInternalUrl: string; ledgerTimeoutMs: number }): DynamicModule {
    return {
      module: PaymentsModule,
      controllers: [
        PaymentCommandConsumer,
        DisputeEventsConsumer,
        InternalOrdersController,
        InternalReferenceDataController,
        InternalRecipientAccountsController,
        InternalEventAnchorsController,
      ],
      providers: [
        EventStoreAnchoring,
        { provide: PAYMENTS_SETTINGS, useValue: settings },
        { provide: CLOCK, useValue: new OffsetClock() },
        // Replies to a gateway replica that is gone are dropped, not retried forever in front of every event.
        { provide: OUTBOX_RELAY_OPTIONS, useValue: { ...settings.outbox, isTransientTopic: isGatewayReplyTopic } },
        {
          provide: LEDGER_HOLDS,
          inject: [{ token: SERVICE_TOKEN_ISSUER, optional: true }],
          useFactory: (issuer?: ServiceTokenIssuer) =>
            new HttpLedgerHolds(settings.ledgerInternalUrl, settings.ledgerTimeoutMs, authorizationFor(issuer, 'ledger')),
        },
        { provide: APP_FILTER, useClass: InternalErrorFilter },
        PayerPageLinks,
        RecipientAccountVault,
        PaymentCommandIntake,
        PaymentsTopics,
        ExpirySweeper,
        SandboxAgent,
        OutboxRelayService,
      ],
    };
  }
}
