import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PaymentOrderView } from '@mp/contracts-payments';
import { DomainError, isErrorCode } from '@mp/shared-util-errors';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';

/** Reads go straight to the owning service's internal API, never through Kafka. */
@Injectable()
export class PaymentsReadClient {
  private readonly logger = new Logger(PaymentsReadClient.name);

  constructor(@Inject(GATEWAY_SETTINGS) private readonly settings: GatewaySettings) {}

  getOrder(merchantId: string, orderId: string): Promise<PaymentOrderView> {
    return this.get(`/internal/merchants/${encodeURIComponent(merchantId)}/orders/${encodeURIComponent(orderId)}`);
  }

  getPayerPage(token: string): Promise<PaymentOrderView> {
    return this.get(`/internal/payer-pages/${encodeURIComponent(token)}`);
  }

  private async get<T>(path: string): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.settings.paymentsInternalUrl}${path}`, { signal: AbortSignal.timeout(this.settings.paymentsReadTimeoutMs) });
    } catch (error) {
      this.logger.warn(`payments read ${path} failed: ${String(error)}`);
      throw new DomainError('SERVICE_UNAVAILABLE', 'The payments service is not reachable; retry shortly');
    }
    const body = (await response.json().catch(() => null)) as { code?: unknown; message?: unknown } | null;
    if (response.ok) return body as T;
    if (response.status === 404 && isErrorCode(body?.code)) throw new DomainError(body.code, String(body.message ?? 'Not found'));
    this.logger.warn(`payments read ${path} answered ${response.status}`);
    throw new DomainError('SERVICE_UNAVAILABLE', 'The payments service could not answer; retry shortly');
  }
}
