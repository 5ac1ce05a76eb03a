import { Module, type DynamicModule } from '@nestjs/common';
import { MessagingSchema1700000000000, OUTBOX_RELAY_OPTIONS, OutboxRelayService, type OutboxRelaySettings } from '@mp/shared-messaging';
import { PaymentCommandConsumer } from './create-incoming-payment/payment-command.consumer';
import { PaymentCommandHandler } from './create-incoming-payment/payment-command.handler';
import { PaymentsSchema1700000001000 } from './persistence/payments-schema.migration';
import { CLOCK, PAYMENTS_SETTINGS, systemClock, type Clock, type PaymentsSettings } from './payments-settings';
import { HealthController, InternalOrdersController } from './read-orders/internal-orders.controller';

/** Migrations of the payments database, in order. */
export const PAYMENTS_MIGRATIONS = [MessagingSchema1700000000000, PaymentsSchema1700000001000];

/** The payments bounded context. Needs a TypeORM DataSource and the messaging port from its app. */
@Module({})
export class PaymentsModule {
  static forRoot(settings: PaymentsSettings & { outbox: OutboxRelaySettings; clock?: Clock }): DynamicModule {
    return {
      module: PaymentsModule,
      controllers: [InternalOrdersController, HealthController],
      providers: [
        { provide: PAYMENTS_SETTINGS, useValue: settings },
        { provide: CLOCK, useValue: settings.clock ?? systemClock },
        { provide: OUTBOX_RELAY_OPTIONS, useValue: settings.outbox },
        PaymentCommandHandler,
        PaymentCommandConsumer,
        OutboxRelayService,
      ],
    };
  }
}
