// Wire command MarkPaidByPayer → domain command MarkPaidByPayer (paymentOrderDecider).
import { PayerPagePayload, payerPageOrder, type PaymentWireCommand } from './payment-wire-command';

export class MarkPaidByPayerPayload extends PayerPagePayload {}

/** The payer's "I have paid", on the order behind the page's token hash. */
export const markPaidByPayer: PaymentWireCommand<'MarkPaidByPayer'> = {
  type: 'MarkPaidByPayer',
  payload: MarkPaidByPayerPayload,
  async resolve({ manager, now }, { payerPageTokenHash }) {
    const row = await payerPageOrder(manager, payerPageTokenHash);
    return { merchantId: row.merchant_id, orderId: row.order_id, row, command: { type: 'MarkPaidByPayer', metadata: { now } } };
  },
};
