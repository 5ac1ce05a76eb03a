/**
 * The ledger hold that backs a payout: amount + fee, frozen before the order exists. The
 * payments service places it under this id and the ledger resolves it from the order's final
 * event, so both sides must derive it the same way: hence it lives in the contract.
 */
export function payoutHoldId(merchantId: string, orderId: string): string {
  return `payout:${merchantId}:${orderId}`;
}
