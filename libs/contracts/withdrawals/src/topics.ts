/**
 * Topics of the withdrawals context. Keys: `<merchantId>/<orderId>` for commands and events
 * (one withdrawal's messages stay ordered, and concurrent duplicates of one order_id meet on
 * one partition). Replies go to the sending gateway replica's `gateway.replies.<instance>` topic.
 */
export const WITHDRAWALS_TOPICS = {
  /** Commands from the gateway to the withdrawals service. */
  commands: 'withdrawals.commands',
  /** External events of withdrawals, for the ledger and the callback dispatcher. */
  events: 'withdrawals.events',
} as const;

export function withdrawalKey(merchantId: string, orderId: string): string {
  return `${merchantId}/${orderId}`;
}

/**
 * The ledger hold that freezes amount + network fee; the withdrawals service places it and the
 * ledger resolves it from the withdrawal's events, so both derive it here.
 */
export const withdrawalHoldId = (merchantId: string, orderId: string): string => `withdrawal:${merchantId}:${orderId}`;
