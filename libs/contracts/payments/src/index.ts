export { GATEWAY_REPLIES_TOPIC, PAYMENTS_TOPICS, paymentOrderKey } from './topics';
export { PAYMENT_ORDER_STATUSES, type PaymentDirection, type PaymentOrderStatus, type PaymentOrderView } from './order-view';
export {
  COMMAND_REPLY_TYPE,
  PAYMENT_COMMAND_SCHEMA_VERSION,
  PAYMENT_COMMAND_TYPES,
  type CommandReplyData,
  type CreateIncomingPaymentData,
  type PaymentCommandType,
} from './commands';
export { PAYMENT_ORDER_EVENT_SCHEMA_VERSION, PAYMENT_ORDER_EVENT_TYPES, type IncomingPaymentCreatedV1 } from './events';
