import { EventStoreAnchoring, InternalEventAnchorsController } from '@mp/shared-command-handling';
import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import { Module, type DynamicModule } from '@nestjs/common';
import { CLOCK, OffsetClock } from '@mp/shared-util-clock';
import { APP_FILTER } from '@nestjs/core';
import { InternalErrorFilter } from '@mp/shared-nest-http';
import { MessagingEventHashChain1700000060380, MessagingSchema1700000000000, MessagingUnreadIndexes1700000030000 } from '@mp/shared-messaging';
import { LedgerTopics, PaymentEventsConsumer } from './commands/payment-events.consumer';
import { InternalHoldsController } from './http/internal-holds.controller';
import { InternalMerchantLedgerController } from './http/internal-merchant-ledger.controller';
import { LEDGER_SETTINGS, type LedgerSettings } from './ledger-settings';
import { LedgerSchema1700000002000 } from './persistence/ledger-schema.migration';
import { LedgerOrphanHolds1700000003000 } from './persistence/orphan-holds.migration';
import { LedgerRunningBalances1700000004000 } from './persistence/running-balances.migration';
import { LedgerUnreadIndexes1700000030200 } from './persistence/unread-indexes.migration';
import { LedgerUnusedOutbox1700000030300 } from './persistence/unused-outbox.migration';
import { OrphanHoldSweeper } from './holds/orphan-hold.sweeper';
import { HttpPaymentOrderDirectory, PAYMENT_ORDER_DIRECTORY, WITHDRAWAL_DIRECTORY } from './holds/payment-order-directory.port';
import { InternalConversionsController } from './http/internal-conversions.controller';
import { WithdrawalEventsConsumer } from './commands/withdrawal-events.consumer';
import { LedgerConversions1700000005000 } from './persistence/conversions.migration';
import { LedgerOperatorApprovals1700000006000 } from './persistence/operator-approvals.migration';
import { LedgerPostingsByCurrencyTime1700000060410 } from './persistence/postings-by-currency-time.migration';
import { OperatorMoneyActions } from './approvals/operator-money.service';
import { InternalApprovalsController } from './http/internal-approvals.controller';

/** Migrations of the ledger database, in order. */
export const LEDGER_MIGRATIONS = [
  MessagingSchema1700000000000,
  LedgerSchema1700000002000,
  LedgerOrphanHolds1700000003000,
  LedgerRunningBalances1700000004000,
  LedgerConversions1700000005000,
  LedgerOperatorApprovals1700000006000,
  MessagingUnreadIndexes1700000030000,
  LedgerUnreadIndexes1700000030200,
  LedgerUnusedOutbox1700000030300,
  MessagingEventHashChain1700000060380,
  LedgerPostingsByCurrencyTime1700000060410,
];

/**
 * The ledger bounded context. Needs a TypeORM DataSource and the messaging port from its app.
 * It publishes nothing: no outbox relay, and its database has no outbox table
 * (LedgerUnusedOutbox1700000030300 drops the one the shared messaging schema creates).
 */
@Module({})
export class LedgerModule {
  static forRoot(settings: LedgerSettings): DynamicModule {
    return {
      module: LedgerModule,
      controllers: [
        PaymentEventsConsumer,
        WithdrawalEventsConsumer,
        InternalHoldsController,
        InternalMerchantLedgerController,
        InternalConversionsController,
        InternalApprovalsController,
        InternalEventAnchorsController,
      ],
      providers: [
        EventStoreAnchoring,
        { provide: LEDGER_SETTINGS, useValue: settings },
        { provide: CLOCK, useValue: new OffsetClock() },
        { provide: APP_FILTER, useClass: InternalErrorFilter },
        {
          provide: PAYMENT_ORDER_DIRECTORY,
          inject: [{ token: SERVICE_TOKEN_ISSUER, optional: true }],
          useFactory: (issuer?: ServiceTokenIssuer) => new HttpPaymentOrderDirectory(settings.paymentsInternalUrl, 3_000, authorizationFor(issuer, 'payments')),
        },
        {
          provide: WITHDRAWAL_DIRECTORY,
          inject: [{ token: SERVICE_TOKEN_ISSUER, optional: true }],
          useFactory: (issuer?: ServiceTokenIssuer) =>
            new HttpPaymentOrderDirectory(settings.withdrawalsInternalUrl, 3_000, authorizationFor(issuer, 'withdrawals'), 'withdrawals'),
        },
        LedgerTopics,
        OrphanHoldSweeper,
        OperatorMoneyActions,
      ],
    };
  }
}
