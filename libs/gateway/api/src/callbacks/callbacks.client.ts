import { authorizationFor, SERVICE_TOKEN_ISSUER, type ServiceTokenIssuer } from '@mp/shared-service-auth';
import { Inject, Injectable, Optional } from '@nestjs/common';
import {
  CALLBACKS_INTERNAL_PATHS,
  type CallbackDeliveryView,
  type CallbackEndpointView,
  type MerchantWebhookDeliveryDetailView,
  type MerchantWebhookDeliveryPage,
  type WebhookDeliveriesQueryDto,
} from '@mp/contracts-callbacks';
import { GATEWAY_SETTINGS, type GatewaySettings } from '../gateway-settings';
import { InternalClient } from '../http/internal-client';

/** The callback dispatcher's internal API: the delivery log, redelivery, disabled endpoints, for operators and (merchant-scoped) merchants. */
@Injectable()
export class CallbacksClient {
  private readonly client: InternalClient;

  constructor(@Inject(GATEWAY_SETTINGS) settings: GatewaySettings, @Optional() @Inject(SERVICE_TOKEN_ISSUER) issuer?: ServiceTokenIssuer) {
    this.client = new InternalClient(
      'callback dispatcher',
      settings.callbacksInternalUrl,
      settings.paymentsReadTimeoutMs,
      authorizationFor(issuer, 'callbacks'),
    );
  }

  listDeliveries(query: { merchant_id: string; order_id: string } | { event_id: string }): Promise<{ data: CallbackDeliveryView[] }> {
    return this.client.request('GET', `${CALLBACKS_INTERNAL_PATHS.deliveries}?${new URLSearchParams(query).toString()}`);
  }

  redeliver(deliveryId: string): Promise<CallbackDeliveryView> {
    return this.client.request('POST', CALLBACKS_INTERNAL_PATHS.redeliver(deliveryId), {});
  }

  disabledEndpoints(merchantId?: string): Promise<{ data: CallbackEndpointView[] }> {
    return this.client.request('GET', `${CALLBACKS_INTERNAL_PATHS.disabledEndpoints}${merchantId ? `?merchant_id=${encodeURIComponent(merchantId)}` : ''}`);
  }

  /** The merchant set its default callback URL: the outcomes awaiting one are sent there now. */
  defaultUrlSet(merchantId: string, url: string): Promise<{ merchant_id: string; url: string; resumed_deliveries: number }> {
    return this.client.request('POST', CALLBACKS_INTERNAL_PATHS.defaultUrlSet(merchantId), { url });
  }

  enableEndpoint(merchantId: string, url: string): Promise<{ merchant_id: string; url: string; resumed_deliveries: number }> {
    return this.client.request('POST', CALLBACKS_INTERNAL_PATHS.enableEndpoint, { merchant_id: merchantId, url });
  }

  /** The merchant's own delivery log: the dispatcher filters by the merchant, never the gateway. */
  merchantDeliveries(merchantId: string, query: WebhookDeliveriesQueryDto): Promise<MerchantWebhookDeliveryPage> {
    const filters = new URLSearchParams(Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string')).toString();
    return this.client.request('GET', `${CALLBACKS_INTERNAL_PATHS.merchantDeliveries(merchantId)}${filters ? `?${filters}` : ''}`);
  }

  merchantDelivery(merchantId: string, deliveryId: string): Promise<MerchantWebhookDeliveryDetailView> {
    return this.client.request('GET', CALLBACKS_INTERNAL_PATHS.merchantDelivery(merchantId, deliveryId));
  }

  merchantRedeliver(merchantId: string, deliveryId: string): Promise<MerchantWebhookDeliveryDetailView> {
    return this.client.request('POST', CALLBACKS_INTERNAL_PATHS.merchantRedeliver(merchantId, deliveryId), {});
  }

  /** `url` has passed the gateway's callback destination policy. */
  merchantTestDelivery(merchantId: string, url: string): Promise<MerchantWebhookDeliveryDetailView> {
    return this.client.request('POST', CALLBACKS_INTERNAL_PATHS.merchantTestDelivery(merchantId), { url });
  }

  /**
   * Whether the merchant's default callback URL is disabled (a 410): false when it has none;
   * null when the dispatcher cannot say right now, so a profile read never fails for it.
   */
  async isDisabled(merchantId: string, url: string | null): Promise<boolean | null> {
    if (!url) return false;
    try {
      return (await this.disabledEndpoints(merchantId)).data.some((endpoint) => endpoint.url === url);
    } catch {
      return null;
    }
  }
}
