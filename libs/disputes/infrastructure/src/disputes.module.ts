import { EventStoreAnchoring, InternalEventAnchorsController } from '@mp/shared-command-handling';
import { isGatewayReplyTopic } from '@mp/contracts-payments';
import { Module, type DynamicModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
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
import { DisputeCommandIntake } from './commands/dispute-command.intake';
import { DisputeCommandConsumer, DisputesTopics, OrderEventsConsumer } from './commands/dispute-consumers';
import { DisputeReviews } from './commands/review-dispute';
import { SandboxReviewer } from './commands/sandbox-reviewer';
import { DisputeReviewDeadline1700000032200 } from './persistence/dispute-review-deadline.migration';
import { CLOCK, DISPUTES_SETTINGS, OffsetClock, type DisputesSettings } from './disputes-settings';
import { InternalDisputesController } from './http/internal-disputes.controller';
import { DisputeReceiptsLifecycle1700000013000 } from './persistence/dispute-receipts-lifecycle.migration';
import { DisputesSchema1700000010000 } from './persistence/disputes-schema.migration';
import { OperatorDisputeQueue1700000033000 } from './persistence/operator-dispute-queue.migration';
import { DisputeOutcomePublished1700000033300 } from './persistence/outcome-published.migration';
import { DisputeMetadata1700000039200 } from './persistence/dispute-metadata.migration';
import { SandboxDisputes1700000032300 } from './persistence/sandbox-disputes.migration';
import { OrphanReceiptSweeper } from './receipts/orphan-receipt.sweeper';

/** Migrations of the disputes database, in order. */
export const DISPUTES_MIGRATIONS = [
  MessagingSchema1700000000000,
  DisputesSchema1700000010000,
  DisputeReceiptsLifecycle1700000013000,
  MessagingUnreadIndexes1700000030000,
  DisputeReviewDeadline1700000032200,
  SandboxDisputes1700000032300,
  OperatorDisputeQueue1700000033000,
  DisputeOutcomePublished1700000033300,
  MessagingOutboxDeletedOnPublish1700000037100,
  DisputeMetadata1700000039200,
  MessagingEventHashChain1700000060380,
];

/** The disputes bounded context. Needs a TypeORM DataSource and the messaging port from its app. */
@Module({})
export class DisputesModule {
  static forRoot(settings: DisputesSettings & { outbox: OutboxRelaySettings }): DynamicModule {
    return {
      module: DisputesModule,
      controllers: [DisputeCommandConsumer, OrderEventsConsumer, InternalDisputesController, InternalEventAnchorsController],
      providers: [
        EventStoreAnchoring,
        { provide: DISPUTES_SETTINGS, useValue: settings },
        { provide: CLOCK, useValue: new OffsetClock() },
        // Replies to a gateway replica that is gone are dropped, not retried forever in front of every event.
        { provide: OUTBOX_RELAY_OPTIONS, useValue: { ...settings.outbox, isTransientTopic: isGatewayReplyTopic } },
        { provide: APP_FILTER, useClass: InternalErrorFilter },
        DisputeCommandIntake,
        DisputeReviews,
        DisputesTopics,
        OrphanReceiptSweeper,
        SandboxReviewer,
        OutboxRelayService,
      ],
    };
  }
}
