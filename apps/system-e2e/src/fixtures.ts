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
