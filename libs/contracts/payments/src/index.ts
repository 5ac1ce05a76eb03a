export { GATEWAY_REPLIES_TOPIC, gatewayReplyTopicOf, isGatewayReplyTopic, PAYMENTS_TOPICS, paymentOrderKey } from './topics';
export {
  agentViewOf,
  PAYMENT_ORDER_STATUSES,
  type AgentOrderView,
  type BackofficeOrderView,
  type PaymentDirection,
  type PaymentOrderStatus,
  type PaymentOrderSubStatus,
  type PaymentOrderView,
  type ReceiptView,
} from './order-view';
export {
  COMMAND_REPLY_TYPE,
  PAYMENT_COMMAND_SCHEMA_VERSION,
  PAYMENT_COMMAND_TYPES,
  payerLinkContext,
  payerPageTokenHash,
  type AgentCompletePayoutData,
  type AgentDeclineOrderData,
  type AgentOrderActionData,
  type CancelPaymentOrderData,
  type CommandReplyData,
  type PayerLinkRequest,
  type CreateIncomingPaymentData,
  type CreateOutgoingPaymentData,
  type MarkPaidByPayerData,
  type OpenPayerPageData,
  type PaymentCommandDataByType,
  type PaymentCommandType,
} from './commands';
export { payoutHoldId } from './events';
export {
  PAYMENT_ORDER_DISPUTE_EVENT_SCHEMA_VERSION,
  PAYMENT_ORDER_DISPUTE_EVENT_TYPES,
  PAYMENT_ORDER_EXTERNAL_EVENT_SCHEMA_VERSION,
  PAYMENT_ORDER_EXTERNAL_EVENT_TYPES,
  type PaymentOrderDisputeOutcomeAppliedData,
  type PaymentOrderExternalEvent,
  type PaymentOrderExternalEventData,
  type PaymentOrderExternalEventType,
  type PaymentOrderExternalView,
} from './external-events';
export { SANDBOX_AGENT_ID } from './sandbox';
