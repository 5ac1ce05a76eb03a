import { InternalHttpClient, type ServiceAuthorization } from '@mp/shared-service-auth';

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
  private readonly service: InternalHttpClient;

  constructor(
    serviceUrl: string,
    timeoutMs: number,
    authorization: ServiceAuthorization,
    private readonly collection: 'orders' | 'withdrawals' = 'orders',
  ) {
    this.service = new InternalHttpClient({ service: collection === 'orders' ? 'payments' : 'withdrawals', baseUrl: serviceUrl, timeoutMs, authorization });
  }

  async orderExists(merchantId: string, orderId: string): Promise<boolean | 'unknown'> {
    try {
      const { status } = await this.service.call(
        'GET',
        `/internal/merchants/${encodeURIComponent(merchantId)}/${this.collection}/${encodeURIComponent(orderId)}`,
      );
      if (status === 200) return true;
      if (status === 404) return false;
      return 'unknown';
    } catch {
      return 'unknown';
    }
  }
}
