/** Whether the payments service has an order: the one question the orphan-hold sweeper asks it. */
export interface PaymentOrderDirectory {
  /** 'unknown' when payments cannot answer now: the sweeper then leaves the hold alone. */
  orderExists(merchantId: string, orderId: string): Promise<boolean | 'unknown'>;
}

export const PAYMENT_ORDER_DIRECTORY = Symbol('PAYMENT_ORDER_DIRECTORY');

/** The payments service's internal read API. Only a definite 404 means "no such order". */
export class HttpPaymentOrderDirectory implements PaymentOrderDirectory {
  constructor(
    private readonly paymentsUrl: string,
    private readonly timeoutMs: number,
  ) {}

  async orderExists(merchantId: string, orderId: string): Promise<boolean | 'unknown'> {
    try {
      const response = await fetch(`${this.paymentsUrl}/internal/merchants/${encodeURIComponent(merchantId)}/orders/${encodeURIComponent(orderId)}`, {
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      await response.body?.cancel();
      if (response.status === 200) return true;
      if (response.status === 404) return false;
      return 'unknown';
    } catch {
      return 'unknown';
    }
  }
}
