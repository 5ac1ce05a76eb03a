// Wire command AgentConfirmPayIn → domain command ConfirmIncomingPayment (paymentOrderDecider).
import { AgentOrderActionPayload, type PaymentWireCommand } from './payment-wire-command';

export class AgentConfirmPayInPayload extends AgentOrderActionPayload {}

/** The order's agent confirms the payer's money arrived; whether it is the order's agent is the decider's rule. */
export const agentConfirmPayIn: PaymentWireCommand<'AgentConfirmPayIn'> = {
  type: 'AgentConfirmPayIn',
  payload: AgentConfirmPayInPayload,
  async resolve({ now }, { merchantId, orderId, agentId }) {
    return { merchantId, orderId, command: { type: 'ConfirmIncomingPayment', data: { agentId }, metadata: { now } } };
  },
};
