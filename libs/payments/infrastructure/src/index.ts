export { PAYMENTS_MIGRATIONS, PaymentsModule } from './payments.module';
export { CLOCK, OffsetClock, PAYMENTS_SETTINGS, type Clock, type PaymentsSettings } from './payments-settings';
export { RECEIPT_BYTES_MAX } from './receipts/payout-receipts.store';
export { PAYMENTS_CONSUMERS } from './commands/payment-command.consumer';
export { RECIPIENT_ACCOUNT_KEY_PURPOSE } from './recipient-accounts/recipient-account.vault';
export { RecipientAccountsResealStore } from './recipient-accounts/recipient-accounts.reseal';
export { PAYMENTS_INTERNAL_ACCESS } from './internal-access';
export { DAILY_PAYIN_TOTALS_PROJECTION, PAYMENT_ORDERS_PROJECTION, PAYMENTS_PROJECTIONS } from './rebuild/payments.rebuild';
