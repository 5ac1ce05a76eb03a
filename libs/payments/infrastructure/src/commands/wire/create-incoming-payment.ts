// Wire command CreateIncomingPayment → domain command CreateIncomingPayment (paymentOrderDecider).
import { payerPageTokenHash, type CreateIncomingPaymentData } from '@mp/contracts-payments';
import { PROCESS_PUBLIC_KEY_PATTERN } from '@mp/shared-util-secret-box';
import { IsPlainText, MatchesPattern, METHOD_PATTERN } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { loadMethodCatalog } from '../../reference-data/method-catalog.store';
import { CreatePaymentPayload, type PaymentWireCommand } from './payment-wire-command';

export class CreateIncomingPaymentPayload extends CreatePaymentPayload implements CreateIncomingPaymentData {
  @IsOptional()
  @MatchesPattern(METHOD_PATTERN, 'must be a method, e.g. sbp')
  method?: string;

  @IsOptional()
  @IsPlainText(2048)
  returnUrl?: string;

  @IsOptional()
  @MatchesPattern(PROCESS_PUBLIC_KEY_PATTERN, 'must be an X25519 public key')
  payerLinkKey?: string;
}

/** A merchant's pay-in: the decider reads the merchant's methods and the payer page's token hash. */
export const createIncomingPayment: PaymentWireCommand<'CreateIncomingPayment'> = {
  type: 'CreateIncomingPayment',
  payload: CreateIncomingPaymentPayload,
  async resolve({ manager, now, payerPageLinks }, { payerLinkKey: _payerLinkKey, ...data }) {
    // The link key names the asking gateway process, not the order: it stays out of the decider.
    const methodCatalog = await loadMethodCatalog(manager, data.merchantId);
    const tokenHash = payerPageTokenHash(payerPageLinks.tokenFor(data.merchantId, data.orderId));
    return {
      merchantId: data.merchantId,
      orderId: data.orderId,
      command: {
        type: 'CreateIncomingPayment',
        data: { ...data, amountMinor: BigInt(data.amountMinor) },
        metadata: { now, payerPageTokenHash: tokenHash, methodCatalog },
      },
    };
  },
};
