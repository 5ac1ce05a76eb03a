/**
 * Topics of the payments context. Dot-delimited, lower case, versioned only on a breaking
 * change. Keys: `<merchantId>/<orderId>` for commands and order events (one order's messages
 * stay ordered); the gateway instance id for replies.
 */
export const PAYMENTS_TOPICS = {
  /** Commands from the gateway to the payments service. */
  commands: 'payments.commands',
  /** Every state change of a payment order, for the ledger, disputes and callbacks. */
  orderEvents: 'payments.order.events',
} as const;

/** Outcomes of commands, read by the gateway replica that is waiting for them. */
export const GATEWAY_REPLIES_TOPIC = 'gateway.replies';

export function paymentOrderKey(merchantId: string, orderId: string): string {
  return `${merchantId}/${orderId}`;
}
