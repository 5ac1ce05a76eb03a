/**
 * Goal: no secret and no bearer credential ever reaches a log line (docs/operations/logs-and-traces.md): API secrets,
 * webhook secrets, back-office tokens, payer-page tokens and full payout account numbers. The
 * gateway used to log the payer-page path, token included, when a read of it failed.
 * Method: a run of the real system that handles every one of them, on good days and bad ones
 * (wrong credentials, payments down while a payer page is read), then every line every service
 * wrote in this run (SystemUnderTest.serviceLogs) is searched for each of them.
 */
import { createOperator, eventually, registerAgent, SystemUnderTest } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

const ACCOUNT_NUMBER = '4111 2222 3333 4444';

describe('secrets in service logs', () => {
  let system: SystemUnderTest;

  beforeAll(async () => {
    system = await SystemUnderTest.start({ env: { gateway: { GATEWAY_COMMAND_TIMEOUT_MS: '30000' } } });
  });
  afterAll(async () => system?.stop());

  it('never writes an API secret, webhook secret, bearer token, payer-page token or full account number', async () => {
    const operator = await createOperator(system);
    const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    const merchant = await system.createClient('Quiet shop');
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
      (
        await operator.request('PUT', `/backoffice/v1/merchants/${merchantId}/methods`, {
          entries: [
            { method: 'bank_card', direction: 'incoming', ...common },
            { method: 'bank_card', direction: 'outgoing', ...common },
          ],
        })
      ).status,
    ).toBe(200);
    const rotated = await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/webhook-secret/rotate`, {});
    expect(rotated.status).toBe(201);

    // A pay-in through the payer page, confirmed by the agent: the merchant's balance pays the payout.
    const payInId = newOrderId('in');
    const payIn = await merchant.post('/v2/payments/incoming', incomingPayment(payInId, { amount: 5000 }));
    expect(payIn.status).toBe(201);
    const redirectUrl: string = payIn.body.redirect_url;
    const payerToken = new URL(redirectUrl).pathname.split('/').pop() as string;
    expect((await fetch(redirectUrl)).status).toBe(200);
    expect((await fetch(`${redirectUrl}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${redirectUrl}/paid`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${payInId}/confirm`, {})).status).toBe(200);
    await eventually(async () =>
      (await merchant.get('/v2/merchant/balances')).body.settlement.some((entry: { available: number }) => entry.available === 5000),
    );

    // A payout whose full account number the agent reveals.
    const payoutId = newOrderId('out');
    const payout = await merchant.post('/v2/payments/outgoing', {
      ...incomingPayment(payoutId, { amount: 100 }),
      method: 'bank_card',
      account_number: ACCOUNT_NUMBER,
    });
    expect(payout.status).toBe(201);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${payoutId}/take`, {})).status).toBe(200);
    const revealed = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${payoutId}/account-number`);
    expect(revealed.body.account_number).toBe(ACCOUNT_NUMBER);

    // Bad days: wrong credentials, and the payments service down while the payer page is read.
    expect((await merchant.request({ method: 'GET', path: '/v2/merchant', headers: { 'x-signature': 'f'.repeat(64) } })).status).toBe(401);
    const outsider = await fetch(`${system.gatewayUrl}/backoffice/v1/agent/orders`, { headers: { authorization: `Bearer ${agent.client.token}x` } });
    expect(outsider.status).toBe(401);
    await system.kill('payments');
    expect((await fetch(redirectUrl)).status).toBe(503);
    expect((await fetch(`${redirectUrl}/status`)).status).toBe(503);
    expect((await fetch(`${redirectUrl}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(503);
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${payoutId}/account-number`)).status).toBe(503);
    await system.startService('payments');
    // A fixed window, not a condition: the restarted service's start-up lines reach its log, which is scanned below.
    await new Promise((resolve) => setTimeout(resolve, 500));

    const secrets: Record<string, string> = {
      'API secret': merchant.credentials.apiSecret,
      'webhook secret': rotated.body.webhook_secret,
      'operator token': operator.token,
      'agent token': agent.client.token,
      'payer-page token': payerToken,
      'account number': ACCOUNT_NUMBER,
      'account number without spaces': ACCOUNT_NUMBER.replaceAll(' ', ''),
      ...Object.fromEntries(Object.entries(system.serviceKeys.keys).map(([service, pair]) => [`${service}'s service-token key`, pair.privateKey])),
    };
    const logs = system.serviceLogs();
    expect(logs.size).toBeGreaterThanOrEqual(6);
    const leaks: string[] = [];
    for (const [file, text] of logs) {
      for (const [name, secret] of Object.entries(secrets)) {
        const line = text.split('\n').find((candidate) => candidate.includes(secret));
        if (line) leaks.push(`${file}: ${name} in ${line.slice(0, 300)}`);
      }
    }
    expect(leaks).toEqual([]);
  });
});
