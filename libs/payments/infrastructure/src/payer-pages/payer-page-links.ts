import { createHmac } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import { payerLinkContext, payerPageTokenHash } from '@mp/contracts-payments';
import { ProcessSealer, type SecretKeyring } from '@mp/shared-util-secret-box';
import { PAYMENTS_SETTINGS, type PaymentsSettings } from '../payments-settings';

const TOKEN_BYTES = 18;

/**
 * The payer-page token is the payer's only credential (whoever holds it can report a pay-in as
 * paid), so it is stored nowhere: it is derived from the order's identity with a key of its own
 * (HMAC-SHA256 under the payments master key's `payer-page-token` purpose) whenever a link is
 * shown, and only its SHA-256 (`payerPageTokenHash` in contracts) is kept to find the order.
 * Events, the outbox, the projection and Kafka therefore never hold it; the link reaches the
 * merchant over the internal HTTP API, or sealed for the asking gateway process in a command's
 * reply (`sealedUrlFor`): only ciphertext that process alone opens passes the outbox and Kafka.
 *
 * New orders get tokens under the current master key. An order keeps the token it was created
 * with (its hash is in its events), so while its master key is retired but still configured,
 * its link is derived with that key: a master-key rotation does not change a live link.
 */
@Injectable()
export class PayerPageLinks {
  private readonly keys: SecretKeyring;
  private readonly baseUrl: string;
  /** This process's key pair for sealing links to gateway processes. */
  private readonly sealer = new ProcessSealer();

  constructor(@Inject(PAYMENTS_SETTINGS) settings: PaymentsSettings) {
    this.keys = settings.secretsKeyring.derive('payer-page-token');
    this.baseUrl = settings.payerPageBaseUrl;
  }

  /** The token of a new order, under the current key. */
  tokenFor(merchantId: string, orderId: string): string {
    return this.tokenUnder(this.keys.currentVersion, merchantId, orderId);
  }

  /**
   * The link of an existing order: the token whose hash the order stored, under whichever
   * configured key version gives it. With that version removed, the current key's link (which
   * does not open the page) is all that can be shown; the rotation guide says to keep a retired
   * payments key until pay-ins created before the rotation have ended.
   */
  urlFor(merchantId: string, orderId: string, storedTokenHash: string | null): string {
    const versions = [this.keys.currentVersion, ...this.keys.retiredVersions.reverse()];
    const tokens = versions.map((version) => this.tokenUnder(version, merchantId, orderId));
    const token = tokens.find((candidate) => payerPageTokenHash(candidate) === storedTokenHash) ?? tokens[0];
    return `${this.baseUrl}/pay/${token}`;
  }

  /**
   * `urlFor`, sealed for the gateway process whose public key the command named. Why not the
   * link in the clear: the reply rests on the gateway's reply topic (an hour's retention), which
   * must not hold a credential. Why not a key in the gateway that derives links: the gateway
   * could then make the link of any order, and payments' master key also guards payout account
   * numbers. Sealed this way the gateway learns the links of the orders it asked about, as
   * it did with the HTTP read, and nothing more.
   */
  sealedUrlFor(gatewayPublicKey: string, merchantId: string, orderId: string, storedTokenHash: string | null): string {
    return this.sealer.seal(gatewayPublicKey, this.urlFor(merchantId, orderId, storedTokenHash), payerLinkContext(merchantId, orderId));
  }

  private tokenUnder(version: number, merchantId: string, orderId: string): string {
    return createHmac('sha256', this.keys.keyFor(version)).update(`${merchantId}/${orderId}`).digest().subarray(0, TOKEN_BYTES).toString('base64url');
  }
}
