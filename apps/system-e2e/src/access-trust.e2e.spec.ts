/**
 * Goal: the platform's access boundaries (docs/operations/gateway.md), end to end with real processes. A merchant's API secret
 * rotates with an overlap (old and new verify, then only the new); a suspended merchant is
 * refused while its pay-in in flight still settles and reports; operator credentials expire
 * and can be revoked; every back-office action is in the audit trail with its actor.
 * The gateway's clock is moved forward through its test-clock route (TEST_CLOCK_ENABLED).
 */
import { BackofficeClient, CallbackReceiver, createOperator, registerAgent, SignedClient, SystemUnderTest, type RegisteredAgent } from '@mp/shared-testing';
import { eventually } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

const HOUR_SECONDS = 3_600;
const DAY_SECONDS = 24 * HOUR_SECONDS;

describe('access: secret rotation, suspension, operator credentials, audit', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let operatorId: string;
  let agent: RegisteredAgent;
  let receiver: CallbackReceiver | undefined;

  const createMerchant = async (name: string) => {
    const created = await operator.request('POST', '/backoffice/v1/merchants', { name });
    expect(created.status).toBe(201);
    return {
      client: new SignedClient(system.gatewayUrl, { merchantId: created.body.merchant_id, apiSecret: created.body.api_secret }),
      webhookSecret: created.body.webhook_secret as string,
    };
  };
  const withSecret = (client: SignedClient, apiSecret: string) => new SignedClient(system.gatewayUrl, { merchantId: client.credentials.merchantId, apiSecret });
  const advanceGatewayClock = async (seconds: number) => expect(await system.advanceGatewayClock(seconds)).toBe(200);
  const errorOf = (response: { status: number; body: { error?: { code: string } } }) => [response.status, response.body.error?.code];

  beforeAll(async () => {
    system = await SystemUnderTest.start({ env: { gateway: { ALLOW_HTTP_CALLBACK_URLS: 'true', TEST_CLOCK_ENABLED: 'true' } } });
    operator = await createOperator(system, 'Access e2e operator');
    const listed = await operator.request('GET', '/backoffice/v1/operator-credentials');
    operatorId = listed.body.data.find((credential: { name: string }) => credential.name === 'Access e2e operator').credential_id;
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
  });

  afterAll(async () => {
    await system?.stop();
    await receiver?.stop();
  });

  it('verifies the old and the new API secret during the overlap, refuses a second rotation, and refuses the old one after the window', async () => {
    const { client: oldClient } = await createMerchant('Rotating shop');
    expect((await oldClient.get('/v2/merchant')).status).toBe(200); // the old secret is now in the credential cache

    const rotated = await oldClient.post('/v2/merchant/api-secret/rotate', {});
    expect(rotated.status).toBe(201);
    expect(rotated.body.api_secret).toMatch(/^sk_/);
    expect(Date.parse(rotated.body.previous_secret_valid_until) - Date.now()).toBeGreaterThan(23.9 * HOUR_SECONDS * 1_000);
    const newClient = withSecret(oldClient, rotated.body.api_secret);
    expect((await oldClient.get('/v2/merchant')).status).toBe(200);
    expect((await newClient.get('/v2/merchant')).status).toBe(200);

    const again = await newClient.post('/v2/merchant/api-secret/rotate', {});
    expect(errorOf(again)).toEqual([409, 'SECRET_ROTATION_IN_PROGRESS']);
    expect(again.body.previous_secret_valid_until).toBe(rotated.body.previous_secret_valid_until);
    const byOperator = await operator.request('POST', `/backoffice/v1/merchants/${oldClient.credentials.merchantId}/api-secret/rotate`, { overlap_hours: 2 });
    expect(errorOf(byOperator)).toEqual([409, 'SECRET_ROTATION_IN_PROGRESS']);
    const tooLong = await newClient.post('/v2/merchant/api-secret/rotate', { overlap_hours: 169 });
    expect([tooLong.status, tooLong.body.error.details[0].field]).toEqual([400, 'overlap_hours']);

    // Just before the end both still verify; just after, only the new one, although the old one is still cached.
    await advanceGatewayClock(DAY_SECONDS - 120);
    expect((await oldClient.get('/v2/merchant')).status).toBe(200);
    await advanceGatewayClock(240);
    expect(errorOf(await oldClient.get('/v2/merchant'))).toEqual([401, 'INVALID_SIGNATURE']);
    expect((await newClient.get('/v2/merchant')).status).toBe(200);

    // An operator rotation ends a leaked secret's overlap at once with overlap_hours 0.
    const byOperatorAfter = await operator.request('POST', `/backoffice/v1/merchants/${oldClient.credentials.merchantId}/api-secret/rotate`, {
      overlap_hours: 1,
    });
    expect(byOperatorAfter.status).toBe(201);
    const operatorClient = withSecret(oldClient, byOperatorAfter.body.api_secret);
    expect((await newClient.get('/v2/merchant')).status).toBe(200);
    const emergency = await operator.request('POST', `/backoffice/v1/merchants/${oldClient.credentials.merchantId}/api-secret/rotate`, { overlap_hours: 0 });
    expect(emergency.status).toBe(201);
    expect(errorOf(await newClient.get('/v2/merchant'))).toEqual([401, 'INVALID_SIGNATURE']);
    expect(errorOf(await operatorClient.get('/v2/merchant'))).toEqual([401, 'INVALID_SIGNATURE']);
    expect((await withSecret(oldClient, emergency.body.api_secret).get('/v2/merchant')).status).toBe(200);

    const webhook = await withSecret(oldClient, emergency.body.api_secret).post('/v2/merchant/webhook-secret/rotate', { overlap_hours: 1 });
    expect(webhook.status).toBe(201);
    expect(webhook.body.webhook_secret).toMatch(/^whsec_/);
  });

  it('refuses a suspended merchant with MERCHANT_SUSPENDED while its pay-in in flight settles and reports, and takes it back when reinstated', async () => {
    const { client: merchant, webhookSecret } = await createMerchant('Suspended shop');
    const merchantId = merchant.credentials.merchantId;
    receiver = await CallbackReceiver.start({ secrets: [webhookSecret] });
    const orderId = newOrderId('in-flight');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 1500, callback_url: receiver.url() }));
    expect(created.status).toBe(201);
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);

    const suspended = await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/suspend`, { reason: 'chargeback ratio under review' });
    expect([suspended.status, suspended.body.status]).toEqual([200, 'suspended']);
    expect(errorOf(await merchant.get('/v2/merchant'))).toEqual([403, 'MERCHANT_SUSPENDED']);
    expect(errorOf(await merchant.post('/v2/payments/incoming', incomingPayment(newOrderId('refused'))))).toEqual([403, 'MERCHANT_SUSPENDED']);
    expect(errorOf(await withSecret(merchant, 'sk_wrong').get('/v2/merchant'))).toEqual([401, 'INVALID_SIGNATURE']);
    expect(errorOf(await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/suspend`, { reason: 'twice' }))).toEqual([
      409,
      'MERCHANT_STATUS_CONFLICT',
    ]);
    const view = await operator.request('GET', `/backoffice/v1/merchants/${merchantId}`);
    expect(view.body).toMatchObject({
      status: 'suspended',
      status_reason: 'chargeback ratio under review',
      status_changed_by: operatorId,
      status_changed_at: expect.any(String),
    });

    // Money already in flight still settles, and its callback still goes out.
    expect((await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchantId}/${orderId}/confirm`, {})).status).toBe(200);
    const callbacks = await eventually(
      () => receiver?.received ?? [],
      (received) => received.length === 1,
      'the pay-in callback',
    );
    expect(JSON.parse(callbacks[0]?.body ?? '{}')).toMatchObject({ type: 'payment.succeeded', data: { order_id: orderId } });
    expect(callbacks[0]?.verifiedWith).toEqual([webhookSecret]);
    const rubAvailable = async () =>
      (await operator.request('GET', `/backoffice/v1/merchants/${merchantId}/balances`)).body.settlement?.find(
        (entry: { currency: string }) => entry.currency === 'RUB',
      )?.available ?? 0;
    await eventually(rubAvailable, (available) => Number(available) > 0, 'the settled pay-in in the balance');

    const reinstated = await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/reinstate`, { reason: 'review passed' });
    expect([reinstated.status, reinstated.body.status]).toEqual([200, 'active']);
    const status = await merchant.get(`/v2/payments/status/${orderId}`);
    expect([status.status, status.body.status]).toEqual([200, 'SUCCEEDED']);
  });

  it('refuses a revoked and an expired operator token with their codes, and lists credentials without tokens', async () => {
    const shortLived = await operator.request('POST', '/backoffice/v1/operator-credentials', { name: 'Night shift', lifetime_days: 1 });
    expect(shortLived.status).toBe(201);
    expect(Date.parse(shortLived.body.expires_at)).toBeGreaterThan(Date.now());
    const toRevoke = await operator.request('POST', '/backoffice/v1/operator-credentials', { name: 'Contractor' });
    const nightShift = new BackofficeClient(system.gatewayUrl, shortLived.body.token);
    const contractor = new BackofficeClient(system.gatewayUrl, toRevoke.body.token);
    expect((await nightShift.request('GET', '/backoffice/v1/operator-credentials')).status).toBe(200);
    expect((await contractor.request('GET', '/backoffice/v1/operator-credentials')).status).toBe(200);

    const revoked = await operator.request('POST', `/backoffice/v1/operator-credentials/${toRevoke.body.credential_id}/revoke`);
    expect([revoked.status, revoked.body.state, revoked.body.revoked_by]).toEqual([200, 'revoked', operatorId]);
    expect(errorOf(await contractor.request('GET', '/backoffice/v1/operator-credentials'))).toEqual([401, 'CREDENTIAL_REVOKED']);
    expect(errorOf(await operator.request('POST', '/backoffice/v1/operator-credentials/cred_000000000000000000000000/revoke'))).toEqual([404, 'NOT_FOUND']);

    await advanceGatewayClock(DAY_SECONDS + 60);
    expect(errorOf(await nightShift.request('GET', '/backoffice/v1/operator-credentials'))).toEqual([401, 'CREDENTIAL_EXPIRED']);
    const listed = await operator.request('GET', '/backoffice/v1/operator-credentials');
    expect(listed.status).toBe(200);
    const states = Object.fromEntries(listed.body.data.map((credential: { name: string; state: string }) => [credential.name, credential.state]));
    expect(states).toMatchObject({ 'Night shift': 'expired', Contractor: 'revoked', 'Access e2e operator': 'active' });
    expect(listed.text).not.toContain(shortLived.body.token);
    expect(listed.text).not.toContain('token');
  });

  it('audits every back-office action with the actor from the credential, refusals included', async () => {
    const trail = await operator.request('GET', `/backoffice/v1/audit?actor_credential_id=${operatorId}&limit=500`);
    expect(trail.status).toBe(200);
    const actions = trail.body.data.map((entry: { action: string; status_code: number; error_code: string | null }) => [
      entry.action,
      entry.status_code,
      entry.error_code,
    ]);
    expect(actions).toEqual(
      expect.arrayContaining([
        ['POST /backoffice/v1/merchants', 201, null],
        ['POST /backoffice/v1/agents', 201, null],
        ['POST /backoffice/v1/merchants/:merchantId/api-secret/rotate', 409, 'SECRET_ROTATION_IN_PROGRESS'],
        ['POST /backoffice/v1/merchants/:merchantId/api-secret/rotate', 201, null],
        ['POST /backoffice/v1/merchants/:merchantId/suspend', 200, null],
        ['POST /backoffice/v1/merchants/:merchantId/suspend', 409, 'MERCHANT_STATUS_CONFLICT'],
        ['POST /backoffice/v1/merchants/:merchantId/reinstate', 200, null],
        ['POST /backoffice/v1/operator-credentials', 201, null],
        ['POST /backoffice/v1/operator-credentials/:credentialId/revoke', 200, null],
      ]),
    );
    expect(
      trail.body.data.every(
        (entry: { actor_credential_id: string; actor_name: string }) => entry.actor_credential_id === operatorId && entry.actor_name === 'Access e2e operator',
      ),
    ).toBe(true);
    const suspension = trail.body.data.find((entry: { action: string; status_code: number }) => entry.action.endsWith('/suspend') && entry.status_code === 200);
    expect(suspension).toMatchObject({ reason: 'chargeback ratio under review', merchant_id: expect.stringMatching(/^mch_/) });
    // Reads are not actions; the agent's own actions are audited under the agent's credential.
    expect(actions.some(([action]: [string]) => action.startsWith('GET '))).toBe(false);
    const everyone = await operator.request('GET', '/backoffice/v1/audit?limit=500');
    expect(everyone.body.data.some((entry: { actor_role: string; action: string }) => entry.actor_role === 'agent' && entry.action.endsWith('/confirm'))).toBe(
      true,
    );
    const bad = await operator.request('GET', '/backoffice/v1/audit?actor=me');
    expect(errorOf(bad)).toEqual([400, 'VALIDATION_ERROR']);
  });
});
