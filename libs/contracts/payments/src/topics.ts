/**
 * Topics of the payments context. Dot-delimited, lower case, versioned only on a breaking
 * change. Keys: `<merchantId>/<orderId>` for commands and order events (one order's messages
 * stay ordered); the command's correlation id for replies.
 */
export const PAYMENTS_TOPICS = {
  /** Commands from the gateway to the payments service. */
  commands: 'payments.commands',
  /** Every state change of a payment order, for the ledger, disputes and callbacks. */
  orderEvents: 'payments.order.events',
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
