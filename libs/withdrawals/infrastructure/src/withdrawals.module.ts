import { EventStoreAnchoring, InternalEventAnchorsController } from '@mp/shared-command-handling';
import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import { isGatewayReplyTopic } from '@mp/contracts-payments';
import { Module, type DynamicModule } from '@nestjs/common';
import { CLOCK, OffsetClock } from '@mp/shared-util-clock';
import { APP_FILTER } from '@nestjs/core';
import { HttpLedgerHolds } from '@mp/ledger-client';
import {
  MessagingEventHashChain1700000060380,
  MessagingOutboxDeletedOnPublish1700000037100,
  MessagingSchema1700000000000,
  MessagingUnreadIndexes1700000030000,
  OUTBOX_RELAY_OPTIONS,
  OutboxRelayService,
  type OutboxRelaySettings,
} from '@mp/shared-messaging';
import { InternalErrorFilter } from '@mp/shared-nest-http';
import { WithdrawalCommandConsumer, WithdrawalsTopics } from './commands/withdrawal-command.consumer';
import { WithdrawalCommandIntake } from './commands/withdrawal-command.intake';
import { LEDGER_HOLDS } from './commands/withdrawal.stream';
import { InternalWithdrawalsController } from './http/internal-withdrawals.controller';
import { WithdrawalReconciliation1700000005100 } from './persistence/withdrawal-reconciliation.migration';
import { WithdrawalMetadata1700000039100 } from './persistence/withdrawal-metadata.migration';
import { WithdrawalsSchema1700000005000 } from './persistence/withdrawals-schema.migration';
import { NETWORK_ADAPTER } from './sending/network-adapter.port';
import { LIVE_NETWORK_ADAPTER, ModeRoutingNetworkAdapter } from './sending/mode-routing-network.adapter';
import { SimulatedNetworkAdapter } from './sending/simulated-network.adapter';
import { WithdrawalSender } from './sending/withdrawal-sender';
import { WITHDRAWALS_SETTINGS, type WithdrawalsSettings } from './withdrawals-settings';

/** Migrations of the withdrawals database, in order. */
export const WITHDRAWALS_MIGRATIONS = [
  MessagingSchema1700000000000,
  WithdrawalsSchema1700000005000,
  WithdrawalReconciliation1700000005100,
  MessagingUnreadIndexes1700000030000,
  MessagingOutboxDeletedOnPublish1700000037100,
  WithdrawalMetadata1700000039100,
  MessagingEventHashChain1700000060380,
];

/** The withdrawals bounded context. Needs a TypeORM DataSource and the messaging port from its app. */
@Module({})
export class WithdrawalsModule {
  static forRoot(settings: WithdrawalsSettings & { outbox: OutboxRelaySettings }): DynamicModule {
    return {
      module: WithdrawalsModule,
      controllers: [WithdrawalCommandConsumer, InternalWithdrawalsController, InternalEventAnchorsController],
      providers: [
        EventStoreAnchoring,
        { provide: WITHDRAWALS_SETTINGS, useValue: settings },
        { provide: CLOCK, useValue: new OffsetClock() },
        // Replies to a gateway replica that is gone are dropped, not retried forever in front of every event.
        { provide: OUTBOX_RELAY_OPTIONS, useValue: { ...settings.outbox, isTransientTopic: isGatewayReplyTopic } },
        {
          provide: LEDGER_HOLDS,
          inject: [{ token: SERVICE_TOKEN_ISSUER, optional: true }],
          useFactory: (issuer?: ServiceTokenIssuer) =>
            new HttpLedgerHolds(settings.ledgerInternalUrl, settings.ledgerTimeoutMs, authorizationFor(issuer, 'ledger')),
        },
        SimulatedNetworkAdapter,
        // No real network adapter yet: live withdrawals use the simulator too. Test-mode ones always do.
        { provide: LIVE_NETWORK_ADAPTER, useExisting: SimulatedNetworkAdapter },
        { provide: NETWORK_ADAPTER, useClass: ModeRoutingNetworkAdapter },
        { provide: APP_FILTER, useClass: InternalErrorFilter },
        WithdrawalsTopics,
        WithdrawalCommandIntake,
        WithdrawalSender,
        OutboxRelayService,
      ],
    };
  }
}
