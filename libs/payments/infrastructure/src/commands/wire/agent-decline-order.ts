// Wire command AgentDeclineOrder → domain command DeclinePaymentOrder (paymentOrderDecider).
import type { AgentDeclineOrderData } from '@mp/contracts-payments';
import { IsPlainText } from '@mp/shared-util-validation';
import { AgentOrderActionPayload, type PaymentWireCommand } from './payment-wire-command';

export class AgentDeclineOrderPayload extends AgentOrderActionPayload implements AgentDeclineOrderData {
  @IsPlainText(500)
  reason!: string;
}

/** The order's agent declines it, with a reason; whether it is the order's agent is the decider's rule. */
export const agentDeclineOrder: PaymentWireCommand<'AgentDeclineOrder'> = {
  type: 'AgentDeclineOrder',
  payload: AgentDeclineOrderPayload,
  async resolve({ now }, { merchantId, orderId, agentId, reason }) {
    return { merchantId, orderId, command: { type: 'DeclinePaymentOrder', data: { agentId, reason }, metadata: { now } } };
  },
};
