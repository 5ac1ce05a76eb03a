/**
 * Topics of the payments context. Dot-delimited, lower case, versioned only on a breaking
 * change. Keys: `<merchantId>/<orderId>` for commands and order events (one order's messages
 * stay ordered on each topic; across the two order topics, by the events' `version`); the
 * command's correlation id for replies.
 */
export const PAYMENTS_TOPICS = {
  /** Commands from the gateway to the payments service. */
  commands: 'payments.commands',
  /**
   * The order changes that move money or end the order (a payout's creation and its hold, the
   * four outcomes, a dispute's outcome applied), for the ledger, disputes and callbacks.
   */
  orderEvents: 'payments.order.events',
  /**
   * The order changes that do neither (a pay-in's creation, an agent's assignment, the payer's
   * report), for disputes only: the ledger and the callback dispatcher would fetch and pass over
   * a message per create (docs/decisions/order-progress-topic.md).
   */
  orderProgress: 'payments.order.progress',
} as const;

/**
 * Outcomes of commands. Not one topic but the base of one per gateway replica,
 * `gateway.replies.<instance id>` (the command's `replyTo`), so each replica reads only its own.
 */
export const GATEWAY_REPLIES_TOPIC = 'gateway.replies';

/** The reply topic of the gateway replica with this instance id. */
export function gatewayReplyTopicOf(instanceId: string): string {
  return `${GATEWAY_REPLIES_TOPIC}.${instanceId}`;
}

/**
 * A gateway replica's reply topic; an outbox relay may drop messages to one that no longer
 * exists (replies no longer go through the outbox, but a release's upgrade may find some there).
 */
export function isGatewayReplyTopic(topic: string): boolean {
  return topic.startsWith(`${GATEWAY_REPLIES_TOPIC}.`);
}

export function paymentOrderKey(merchantId: string, orderId: string): string {
  return `${merchantId}/${orderId}`;
}
