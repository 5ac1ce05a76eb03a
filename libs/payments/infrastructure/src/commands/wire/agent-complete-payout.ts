// Wire command AgentCompletePayout → domain command CompleteOutgoingPayment (paymentOrderDecider).
import type { AgentCompletePayoutData } from '@mp/contracts-payments';
import { agentOrderNotFound } from '@mp/payments-domain';
import { DomainError } from '@mp/shared-util-errors';
import { MatchesPattern, RECEIPT_ID_PATTERN } from '@mp/shared-util-validation';
import { loadPaymentOrder } from '../payment-order.stream';
import { findReceipt, receiptRefOf } from '../../receipts/payout-receipts.store';
import { AgentOrderActionPayload, type PaymentWireCommand } from './payment-wire-command';

export class AgentCompletePayoutPayload extends AgentOrderActionPayload implements AgentCompletePayoutData {
  @MatchesPattern(RECEIPT_ID_PATTERN, 'must be a receipt id')
  receiptId!: string;
}

/**
 * The payout's agent reports it sent, with the receipt it uploaded. Whether the order is this
 * agent's is asked before anything about the receipt, so another agent's order and a missing one
 * get the same not-found.
 */
export const agentCompletePayout: PaymentWireCommand<'AgentCompletePayout'> = {
  type: 'AgentCompletePayout',
  payload: AgentCompletePayoutPayload,
  async resolve({ manager, now }, { merchantId, orderId, agentId, receiptId }) {
    const { state } = await loadPaymentOrder(manager, merchantId, orderId);
    if (state.status === 'NotCreated' || state.agentId !== agentId) throw agentOrderNotFound();
    const receipt = await findReceipt(manager, receiptId);
    if (!receipt || receipt.merchant_id !== merchantId || receipt.order_id !== orderId || receipt.agent_id !== agentId) {
      throw new DomainError('VALIDATION_ERROR', 'The receipt was not uploaded by this agent for this order', [
        { field: 'receipt_id', issue: 'unknown for this order' },
      ]);
    }
    return { merchantId, orderId, command: { type: 'CompleteOutgoingPayment', data: { agentId, receipt: receiptRefOf(receipt) }, metadata: { now } } };
  },
};
