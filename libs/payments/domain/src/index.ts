export { DEFAULT_METHOD_CATALOG, incomingMethodsFor, type MethodEntry } from './method-catalog';
export {
  decide,
  evolve,
  foldPaymentOrder,
  initialPaymentOrder,
  toPaymentOrderStreamId,
  type CreateIncomingPayment,
  type ExistingPaymentOrder,
  type IncomingPaymentCreated,
  type PaymentOrder,
  type PaymentOrderCommand,
  type PaymentOrderEvent,
} from './payment-order.decider';
