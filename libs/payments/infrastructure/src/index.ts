export { PAYMENTS_MIGRATIONS, PaymentsModule } from './payments.module';
export { CLOCK, PAYMENTS_SETTINGS, systemClock, type Clock, type PaymentsSettings } from './payments-settings';
