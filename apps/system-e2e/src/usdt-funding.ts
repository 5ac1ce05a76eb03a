import type { BackofficeClient, RegisteredAgent, SignedClient } from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

export const ERC20_ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
/** Tests tell the withdrawals simulator to fail sends to this one address (WITHDRAWALS_SIMULATOR_FAIL_ADDRESS_PATTERN). */
export const FAILING_ERC20_ADDRESS = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
/** decisions.md's asset table, as shipped: USDT-ERC20 costs a 5.00 USDT network fee. */
export const ERC20_FEE = 5;

/** The platform's 1 % conversion fee these helpers' numbers assume (LEDGER_CONVERSION_FEE_BASIS_POINTS). */
export const CONVERSION_FEE_BASIS_POINTS = 100;

/** A merchant's settlement balance in one currency, as `GET /v2/merchant/balances` shows it. */
export async function balance(merchant: SignedClient, currency: string): Promise<{ available: number; frozen: number }> {
  const response = await merchant.get('/v2/merchant/balances');
  expect(response.status).toBe(200);
  const entry = response.body.settlement.find((item: { currency: string }) => item.currency === currency);
  return entry ? { available: entry.available, frozen: entry.frozen } : { available: 0, frozen: 0 };
}

/**
 * Gives a merchant exactly 1,000.00 USDT the way decisions.md says merchants get USDT: a
 * 101,010.10 RUB pay-in (bank_card, no fee) the agent confirms, converted by an operator at
 * 0.01 USDT per RUB less the 1 % conversion fee (1,010.10 RUB): 100,000.00 RUB × 0.01.
 */
export async function fundWith1000Usdt(operator: BackofficeClient, agent: RegisteredAgent, merchant: SignedClient): Promise<void> {
  const merchantId = merchant.credentials.merchantId;
  const common = {
    country: 'RU',
    currency: 'RUB',
    fee_rate_basis_points: 0,
    fee_fixed_minor: '0',
    min_amount_minor: '100',
    max_amount_minor: '100000000',
    expiry_minutes: 30,
  };
  expect(
    (await operator.request('PUT', `/backoffice/v1/merchants/${merchantId}/methods`, { entries: [{ method: 'bank_card', direction: 'incoming', ...common }] }))
      .status,
  ).toBe(200);
  const orderId = await confirmedPayIn(agent, merchant, { amount: 101010.1 });
  await eventually(
    () => balance(merchant, 'RUB'),
    (rub) => rub.available === 101010.1,
    'the funding credit',
  );

  const conversion = {
    conversion_id: `CV-${orderId}`,
    from_currency: 'RUB',
    to_currency: 'USDT',
    amount: 101010.1,
    rate: '0.01',
    reason: 'merchant asked to withdraw in USDT',
  };
  const converted = await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/conversions`, conversion);
  expect(converted.status).toBe(201);
  expect(converted.body).toMatchObject({ from_amount: 101010.1, fee: 1010.1, to_amount: 1000, rate: '0.01' });
  // Idempotent by conversion_id: the same booking again changes nothing.
  expect((await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/conversions`, conversion)).status).toBe(200);
  expect(await balance(merchant, 'USDT')).toEqual({ available: 1000, frozen: 0 });
  expect(await balance(merchant, 'RUB')).toEqual({ available: 0, frozen: 0 });
}

/**
 * A RUB pay-in (incomingPayment with `overrides`) the payer opens and the agent confirms, as a
 * real one goes; returns its order id. The merchant's methods must include incoming bank_card.
 */
export async function confirmedPayIn(agent: RegisteredAgent, merchant: SignedClient, overrides: Record<string, unknown>): Promise<string> {
  const orderId = newOrderId('pay-in');
  const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, overrides));
  expect(created.status).toBe(201);
  // The payer asks for the payment details (a form post): that assigns the agent.
  expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
  expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {})).status).toBe(200);
  return orderId;
}
