import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { deriveKey } from '@mp/shared-util-secret-box';
import { PAYMENTS_SETTINGS, type PaymentsSettings } from '../payments-settings';

const TOKEN_BYTES = 18;

/**
 * The payer-page token is the payer's only credential (whoever holds it can report a pay-in as
 * paid), so it is stored nowhere: it is derived from the order's identity with a key of its own
 * (HMAC-SHA256 under the payments master key's `payer-page-token` purpose) whenever a link is
 * shown, and only its SHA-256 (`payerPageTokenHash` in contracts) is kept to find the order.
 * Events, the outbox, the projection and Kafka therefore never hold it; the link reaches the
 * merchant over the internal HTTP API only.
 */
@Injectable()
export class PayerPageLinks {
  private readonly key: Buffer;
  private readonly baseUrl: string;

  constructor(@Inject(PAYMENTS_SETTINGS) settings: PaymentsSettings) {
    this.key = deriveKey(settings.secretsMasterKey, 'payer-page-token');
    this.baseUrl = settings.payerPageBaseUrl;
  }

  tokenFor(merchantId: string, orderId: string): string {
    return createHmac('sha256', this.key).update(`${merchantId}/${orderId}`).digest().subarray(0, TOKEN_BYTES).toString('base64url');
  }

  urlFor(merchantId: string, orderId: string): string {
    return `${this.baseUrl}/pay/${this.tokenFor(merchantId, orderId)}`;
  }
}
