// Wire command OpenPayerPage → domain command AssignAgent (paymentOrderDecider), or none when the order has its agent.
import { SANDBOX_AGENT_ID } from '@mp/payments-domain';
import { isTestMerchantId } from '@mp/shared-util-validation';
import { pickAgentFor } from '../../reference-data/payment-agents.store';
import { PayerPagePayload, payerPageOrder, type PaymentWireCommand } from './payment-wire-command';

export class OpenPayerPagePayload extends PayerPagePayload {}

/**
 * Sent only when the payer presses "Show payment details", never for a page view. A pending pay-in
 * with no agent gets one that serves its method, country and currency; otherwise nothing is
 * decided and the reply is the order as it stands.
 */
export const openPayerPage: PaymentWireCommand<'OpenPayerPage'> = {
  type: 'OpenPayerPage',
  payload: OpenPayerPagePayload,
  async resolve({ manager, now }, { payerPageTokenHash }) {
    const row = await payerPageOrder(manager, payerPageTokenHash);
    const needsAgent = row.status === 'PENDING' && row.agent_id === null;
    // A test-mode order never reaches a live agent: the sandbox's simulated agent shows its details.
    const agentFor = () =>
      isTestMerchantId(row.merchant_id) ? SANDBOX_AGENT_ID : pickAgentFor(manager, { method: row.method, country: row.country, currency: row.currency });
    const agentId = needsAgent ? await agentFor() : null;
    return { merchantId: row.merchant_id, orderId: row.order_id, row, command: agentId ? { type: 'AssignAgent', data: { agentId }, metadata: { now } } : null };
  },
};
