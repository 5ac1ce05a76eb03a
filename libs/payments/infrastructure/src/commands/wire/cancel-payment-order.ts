// Wire command CancelPaymentOrder → domain command CancelPaymentOrder (paymentOrderDecider).
import type { PayerLinkRequest } from '@mp/contracts-payments';
import { PROCESS_PUBLIC_KEY_PATTERN } from '@mp/shared-util-secret-box';
import { MatchesPattern } from '@mp/shared-util-validation';
import { IsOptional } from 'class-validator';
import { OrderCommandPayload, type PaymentWireCommand } from './payment-wire-command';

export class CancelPaymentOrderPayload extends OrderCommandPayload implements PayerLinkRequest {
  @IsOptional()
  @MatchesPattern(PROCESS_PUBLIC_KEY_PATTERN, 'must be an X25519 public key')
  payerLinkKey?: string;
}

/** A merchant's cancel: nothing to read, the decider knows whether the order may still be cancelled. */
export const cancelPaymentOrder: PaymentWireCommand<'CancelPaymentOrder'> = {
  type: 'CancelPaymentOrder',
  payload: CancelPaymentOrderPayload,
  async resolve({ now }, { merchantId, orderId }) {
    return { merchantId, orderId, command: { type: 'CancelPaymentOrder', metadata: { now } } };
  },
};
