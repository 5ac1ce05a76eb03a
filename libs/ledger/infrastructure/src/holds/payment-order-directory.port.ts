import type { ServiceAuthorization } from '@mp/shared-service-auth';

/** Whether the payments service has an order: the one question the orphan-hold sweeper asks it. */
export interface PaymentOrderDirectory {
  /** 'unknown' when payments cannot answer now: the sweeper then leaves the hold alone. */
  orderExists(merchantId: string, orderId: string): Promise<boolean | 'unknown'>;
}

export const PAYMENT_ORDER_DIRECTORY = Symbol('PAYMENT_ORDER_DIRECTORY');

/** The same question about withdrawals, whose holds are also placed before they exist. */
export const WITHDRAWAL_DIRECTORY = Symbol('WITHDRAWAL_DIRECTORY');

/**
 * A service's internal read API (payments' orders, or withdrawals'). Only a definite 404
 * means "no such order".
 */
export class HttpPaymentOrderDirectory implements PaymentOrderDirectory {
  constructor(
    private readonly serviceUrl: string,
    private readonly timeoutMs: number,
    private readonly authorization: ServiceAuthorization,
    private readonly collection: 'orders' | 'withdrawals' = 'orders',
  ) {}

  async orderExists(merchantId: string, orderId: string): Promise<boolean | 'unknown'> {
    try {
      const response = await fetch(`${this.serviceUrl}/internal/merchants/${encodeURIComponent(merchantId)}/${this.collection}/${encodeURIComponent(orderId)}`, {
        headers: { authorization: await this.authorization() },
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
