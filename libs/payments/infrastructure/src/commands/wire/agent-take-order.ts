// Wire command AgentTakeOrder → domain command AssignAgent (paymentOrderDecider).
import { agentOrderNotFound } from '@mp/payments-domain';
import { isTestMerchantId } from '@mp/shared-util-validation';
import { loadPaymentOrder } from '../payment-order.stream';
import { agentServes, findAgent } from '../../reference-data/payment-agents.store';
import { AgentOrderActionPayload, type PaymentWireCommand } from './payment-wire-command';

export class AgentTakeOrderPayload extends AgentOrderActionPayload {}

/**
 * An agent may take a payout it serves that nobody has taken, or its own again. Anything else
 * (another agent's, a finished one, outside what it serves, none at all) is not found in one
 * identical answer, so nobody can probe which order ids exist. A test-mode payout is the sandbox
 * agent's alone (SandboxAgent), never a live agent's.
 */
export const agentTakeOrder: PaymentWireCommand<'AgentTakeOrder'> = {
  type: 'AgentTakeOrder',
  payload: AgentTakeOrderPayload,
  async resolve({ manager, now }, { merchantId, orderId, agentId }) {
    const { state } = await loadPaymentOrder(manager, merchantId, orderId);
    const agent = await findAgent(manager, agentId);
    const takeable =
      state.status !== 'NotCreated' &&
      state.direction === 'outgoing' &&
      !!agent &&
      !isTestMerchantId(state.merchantId) &&
      (state.agentId === agentId || (state.status === 'PENDING' && state.agentId === null && agentServes(agent, state)));
    if (!takeable) throw agentOrderNotFound();
    return { merchantId, orderId, command: { type: 'AssignAgent', data: { agentId }, metadata: { now } } };
  },
};
