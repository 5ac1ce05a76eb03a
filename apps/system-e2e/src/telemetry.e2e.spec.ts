/**
 * Goal: an operator can follow one payment through the platform by its correlation id (issue
 * 18): the id of the merchant or agent request that started the work is on the log lines of
 * every service that worked on it. Method: a pay-in on the real system, confirmed by the agent;
 * the confirmation's request id (x-request-id, which the gateway makes the commands' correlation
 * id) is then searched for in the gateway's, payments', ledger's and callback dispatcher's logs
 * of this run (SystemUnderTest.serviceLogs), and the pay-in's creation in the gateway's and
 * payments'.
 */
import { createOperator, eventually, registerAgent, SystemUnderTest, type InstanceName } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

describe('one correlation id across the services', () => {
  let system: SystemUnderTest;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
  });
  afterAll(async () => system?.stop());

  it('finds the pay-in confirmation on the log lines of the gateway, payments, ledger and the callback dispatcher', async () => {
    const operator = await createOperator(system);
    const agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    const merchant = await system.createClient('Traced shop');
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
          entries: [{ method: 'bank_card', direction: 'incoming', ...common }],
        })
      ).status,
    ).toBe(200);

    const payInId = newOrderId('in');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(payInId, { amount: 5000 }));
    expect(created.status).toBe(201);
    const creation = created.headers.get('x-request-id') as string;
    const redirectUrl: string = created.body.redirect_url;
    expect((await fetch(`${redirectUrl}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${redirectUrl}/paid`, { method: 'POST', redirect: 'manual' })).status).toBe(303);
    const confirmed = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${payInId}/confirm`, {});
    expect(confirmed.status).toBe(200);
    const confirmation = confirmed.headers.get('x-request-id') as string;
    expect(confirmation).toMatch(/^req_[0-9a-f]{24}$/);

    const servicesMentioning = (correlationId: string): InstanceName[] =>
      [...system.serviceLogs()]
        .filter(([, text]) => text.split('\n').some((line) => line.includes(`correlation_id=${correlationId}`)))
        .map(([file]) => file.replace(/^[^-]+-/, '').replace(/\.log$/, '') as InstanceName);
    await eventually(() =>
      ['gateway', 'payments', 'ledger', 'callbacks'].every((service) => servicesMentioning(confirmation).includes(service as InstanceName)),
    );
    expect(servicesMentioning(confirmation)).toEqual(expect.arrayContaining(['gateway', 'payments', 'ledger', 'callbacks']));
    expect(servicesMentioning(creation)).toEqual(expect.arrayContaining(['gateway', 'payments']));
    // The gateway's access line for the request carries the same id as its request id (written
    // once the answer is sent, so it may reach the log after the other services' lines).
    const accessLine = () =>
      (system.serviceLogs().get(`${system.runId}-gateway.log`) ?? '')
        .split('\n')
        .some((line) => line.includes('request completed') && line.includes(`request_id=${confirmation}`) && line.includes('status_code=200'));
    expect(await eventually(accessLine, Boolean, 'the access line of the confirmation', 10_000)).toBe(true);
  });
});
