/** A pay-in the default method catalog accepts (RUB via bank_card or sbp, 100.00 to 500000.00). */
export function incomingPayment(orderId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { order_id: orderId, amount: 1500.5, currency: 'RUB', country: 'RU', callback_url: 'https://shop.example/callbacks', ...overrides };
}

let sequence = 0;
/** A fresh order id per call, so tests in one system never collide. */
export function newOrderId(prefix = 'order'): string {
  sequence += 1;
  return `${prefix}-${Date.now().toString(36)}-${sequence}`;
}

/** A method catalog (PUT /backoffice/v1/merchants/{id}/methods): 2 % + 1.00 on pay-ins and payouts in RUB via bank_card, 100.00 to 1,000,000.00, 30 minutes to expiry. */
export const RUB_BANK_CARD_METHODS = {
  entries: ['incoming', 'outgoing'].map((direction) => ({
    method: 'bank_card',
    direction,
    country: 'RU',
    currency: 'RUB',
    fee_rate_basis_points: 200,
    fee_fixed_minor: '100',
    min_amount_minor: '100',
    max_amount_minor: '100000000',
    expiry_minutes: 30,
  })),
};
