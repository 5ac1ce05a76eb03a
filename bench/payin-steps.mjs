/**
 * The two pay-in runs the per-pay-in counting scripts measure (messages-per-payin.mjs,
 * statements-per-payin.mjs): W1's request alone, and a pay-in taken through to success.
 */

/**
 * `createPayIn()`: one pay-in created (W1's request); `payerSteps(created)`: the payer page's
 * "Show payment details" and "I have paid" for it; `lifecycle()`: one created, its payer's steps,
 * then the agent's confirmation.
 */
export function payInSteps({ system, merchant, agent, orderIdPrefix, callbackUrl }) {
  let sequence = 0;
  const createPayIn = async () => {
    sequence += 1;
    const orderId = `${orderIdPrefix}-${Date.now().toString(36)}-${sequence}`;
    const response = await merchant.post('/v2/payments/incoming', {
      order_id: orderId,
      amount: 1000,
      currency: 'RUB',
      country: 'RU',
      callback_url: callbackUrl,
    });
    if (response.status !== 201) throw new Error(`create ${orderId}: ${response.status} ${JSON.stringify(response.body)}`);
    return { orderId, token: String(response.body.redirect_url).split('/pay/')[1] };
  };
  /** The payer page's "Show payment details" and "I have paid" for a created pay-in. */
  const payerSteps = async ({ orderId, token }) => {
    for (const step of ['details', 'paid']) {
      const answer = await fetch(`${system.gatewayUrl}/pay/${token}/${step}`, { method: 'POST', redirect: 'manual' });
      if (answer.status !== 303) throw new Error(`payer page ${step} of ${orderId}: ${answer.status}`);
    }
  };
  const lifecycle = async () => {
    const created = await createPayIn();
    await payerSteps(created);
    const { orderId } = created;
    const confirmed = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {});
    if (confirmed.status !== 200) throw new Error(`confirm ${orderId}: ${confirmed.status}`);
  };
  return { createPayIn, payerSteps, lifecycle };
}
