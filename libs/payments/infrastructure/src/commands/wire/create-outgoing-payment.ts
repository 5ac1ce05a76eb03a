// Wire command CreateOutgoingPayment → domain command CreateOutgoingPayment (paymentOrderDecider).
import type { CreateOutgoingPaymentData } from '@mp/contracts-payments';
import { DomainError } from '@mp/shared-util-errors';
import { MatchesPattern, METHOD_PATTERN, RECIPIENT_ACCOUNT_REF_PATTERN } from '@mp/shared-util-validation';
import { loadMethodCatalog } from '../../reference-data/method-catalog.store';
import { CreatePaymentPayload, type PaymentWireCommand } from './payment-wire-command';

export class CreateOutgoingPaymentPayload extends CreatePaymentPayload implements CreateOutgoingPaymentData {
  @MatchesPattern(METHOD_PATTERN, 'must be a method, e.g. bank_card')
  method!: string;

  @MatchesPattern(RECIPIENT_ACCOUNT_REF_PATTERN, 'must be a recipient account reference')
  recipientAccountRef!: string;
}

/** A merchant's payout: the recipient account the gateway stored, the merchant's methods, and whether a repeat names the same account. */
export const createOutgoingPayment: PaymentWireCommand<'CreateOutgoingPayment'> = {
  type: 'CreateOutgoingPayment',
  payload: CreateOutgoingPaymentPayload,
  async resolve({ manager, now, recipientAccounts }, { recipientAccountRef, ...data }) {
    const recipientAccount = await recipientAccounts.find(manager, data.merchantId, recipientAccountRef);
    if (!recipientAccount)
      throw new DomainError('VALIDATION_ERROR', 'The recipient account was not stored for this merchant', [
        { field: 'account_number', issue: 'unknown recipient account reference' },
      ]);
    const methodCatalog = await loadMethodCatalog(manager, data.merchantId);
    const sameRecipientAccount = await recipientAccounts.sameAsPayoutAccount(manager, data.merchantId, data.orderId, recipientAccountRef);
    return {
      merchantId: data.merchantId,
      orderId: data.orderId,
      command: {
        type: 'CreateOutgoingPayment',
        data: { ...data, amountMinor: BigInt(data.amountMinor), recipientAccount },
        metadata: { now, methodCatalog, ...(sameRecipientAccount === undefined ? {} : { sameRecipientAccount }) },
      },
    };
  },
};
