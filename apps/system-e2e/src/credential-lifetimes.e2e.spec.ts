/**
 * Goal: every back-office credential has a maximum life and every issuance is audited (docs/operations/operators.md).
 * An agent credential lives AGENT_CREDENTIAL_LIFETIME_DAYS; an operator renews it before it
 * expires with a second credential while the first still works (the overlap), and a third live
 * one is refused. Once the first expires its token is refused with CREDENTIAL_EXPIRED and a
 * confirmation sent with it moves no money, while the renewed token confirms. An operator cannot
 * issue a credential living longer than OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS, nor hold more than
 * OPERATOR_LIVE_CREDENTIALS_MAX live ones he issued. The audit trail names who issued what for
 * whom and until when, the bootstrap command's issuance included.
 * Method: real gateway, payments, ledger and Kafka; the gateway's clock moved forward through its
 * test-clock route (TEST_CLOCK_ENABLED); balances read through the back office.
 */
import { BackofficeClient, createOperator, eventually, registerAgent, SignedClient, SystemUnderTest, type RegisteredAgent } from '@mp/shared-testing';
import { incomingPayment, newOrderId } from './fixtures';

const DAY_SECONDS = 86_400;
const DAY_MS = DAY_SECONDS * 1_000;
const AGENT_LIFETIME_DAYS = 30;

describe('credential lifetimes: agent renewal and expiry, operator caps, issuance audit', () => {
  let system: SystemUnderTest;
  let operator: BackofficeClient;
  let operatorCredentialId: string;
  let agent: RegisteredAgent;
  let merchant: SignedClient;
  let renewedToken: string;

  const errorOf = (response: { status: number; body: { error?: { code: string; details?: Array<{ field: string; issue: string }> } } }) => [
    response.status,
    response.body.error?.code,
    response.body.error?.details?.[0]?.issue.split(':')[0],
  ];
  const advanceGatewayClock = async (seconds: number) => expect(await system.advanceGatewayClock(seconds)).toBe(200);
  const settlement = async () => (await operator.request('GET', `/backoffice/v1/merchants/${merchant.credentials.merchantId}/balances`)).body.settlement;

  beforeAll(async () => {
    system = await SystemUnderTest.start({
      env: { gateway: { TEST_CLOCK_ENABLED: 'true', AGENT_CREDENTIAL_LIFETIME_DAYS: String(AGENT_LIFETIME_DAYS), OPERATOR_LIVE_CREDENTIALS_MAX: '2' } },
    });
    operator = await createOperator(system, 'Lifetimes operator');
    const listed = await operator.request('GET', '/backoffice/v1/operator-credentials');
    operatorCredentialId = listed.body.data.find((credential: { name: string }) => credential.name === 'Lifetimes operator').credential_id;
    agent = await registerAgent(system, operator, [{ method: 'bank_card', country: 'RU', currency: 'RUB' }]);
    merchant = await system.createClient('Lifetimes shop');
  });
  afterAll(async () => system?.stop());

  it('renews an agent with an overlap: both tokens work, expiry is listed and sent, a third live credential is refused', async () => {
    const listed = await operator.request('GET', `/backoffice/v1/agents/${agent.agentId}/credentials`);
    expect(listed.status).toBe(200);
    const [first] = listed.body.data;
    expect([listed.body.data.length, first.state, Math.round((Date.parse(first.expires_at) - Date.now()) / DAY_MS)]).toEqual([
      1,
      'active',
      AGENT_LIFETIME_DAYS,
    ]);
    const own = await agent.client.request('GET', '/backoffice/v1/agent/orders');
    expect([own.status, own.headers.get('credential-expires-at')]).toEqual([200, first.expires_at]);

    expect(errorOf(await operator.request('POST', `/backoffice/v1/agents/${agent.agentId}/credentials`, { lifetime_days: AGENT_LIFETIME_DAYS + 1 }))).toEqual([
      400,
      'VALIDATION_ERROR',
      `must be at most ${AGENT_LIFETIME_DAYS} (AGENT_CREDENTIAL_LIFETIME_DAYS)`,
    ]);
    expect(errorOf(await operator.request('POST', '/backoffice/v1/agents/agt_000000000000000000000000/credentials', {}))).toEqual([
      404,
      'NOT_FOUND',
      undefined,
    ]);

    await advanceGatewayClock(10 * DAY_SECONDS);
    const renewed = await operator.request('POST', `/backoffice/v1/agents/${agent.agentId}/credentials`, {});
    expect([renewed.status, renewed.body.agent_id]).toEqual([201, agent.agentId]);
    expect(Date.parse(renewed.body.expires_at) - Date.parse(first.expires_at)).toBeGreaterThan(9 * DAY_MS);
    renewedToken = renewed.body.token;
    expect((await agent.client.request('GET', '/backoffice/v1/agent/orders')).status).toBe(200);
    expect((await new BackofficeClient(system.gatewayUrl, renewedToken).request('GET', '/backoffice/v1/agent/orders')).status).toBe(200);

    expect(errorOf(await operator.request('POST', `/backoffice/v1/agents/${agent.agentId}/credentials`, {}))).toEqual([
      403,
      'FORBIDDEN',
      'LIVE_CREDENTIAL_LIMIT',
    ]);
    const both = await operator.request('GET', `/backoffice/v1/agents/${agent.agentId}/credentials`);
    expect(both.body.data.map((credential: { credential_id: string; state: string }) => [credential.credential_id, credential.state])).toEqual([
      [renewed.body.credential_id, 'active'],
      [first.credential_id, 'active'],
    ]);
    expect(both.text).not.toContain(renewedToken);
  });

  it('refuses the expired agent token with CREDENTIAL_EXPIRED and moves no money; the renewed token confirms', async () => {
    const orderId = newOrderId('expiry');
    const created = await merchant.post('/v2/payments/incoming', incomingPayment(orderId, { amount: 1500 }));
    expect(created.status).toBe(201);
    expect((await fetch(`${created.body.redirect_url}/details`, { method: 'POST', redirect: 'manual' })).status).toBe(303);

    await advanceGatewayClock((AGENT_LIFETIME_DAYS - 10) * DAY_SECONDS + 60);
    const refused = await agent.client.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {});
    expect(errorOf(refused)).toEqual([401, 'CREDENTIAL_EXPIRED', 'expired']);
    expect(await settlement()).toEqual([]);
    const status = await merchant.get(`/v2/payments/status/${orderId}`);
    expect(status.status).toBe(200);
    expect(status.body.status).not.toBe('SUCCEEDED');

    const renewed = new BackofficeClient(system.gatewayUrl, renewedToken);
    expect((await renewed.request('POST', `/backoffice/v1/agent/orders/${merchant.credentials.merchantId}/${orderId}/confirm`, {})).status).toBe(200);
    await eventually(
      settlement,
      (entries) => entries.some((entry: { currency: string; available: number }) => entry.currency === 'RUB' && entry.available > 0),
      'the confirmed pay-in in the balance',
    );
    const states = (await operator.request('GET', `/backoffice/v1/agents/${agent.agentId}/credentials`)).body.data.map(
      (credential: { state: string }) => credential.state,
    );
    expect(states).toEqual(['active', 'expired']);
  });

  it('refuses an operator credential over the maximum life and beyond the live-credential cap, until one is revoked', async () => {
    expect(errorOf(await operator.request('POST', '/backoffice/v1/operator-credentials', { name: 'Too long', lifetime_days: 91 }))).toEqual([
      400,
      'VALIDATION_ERROR',
      'must be at most 90 (OPERATOR_CREDENTIAL_LIFETIME_MAX_DAYS)',
    ]);
    const first = await operator.request('POST', '/backoffice/v1/operator-credentials', { name: 'Day shift', lifetime_days: 90 });
    const second = await operator.request('POST', '/backoffice/v1/operator-credentials', { name: 'Night shift' });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(errorOf(await operator.request('POST', '/backoffice/v1/operator-credentials', { name: 'Third shift' }))).toEqual([
      403,
      'FORBIDDEN',
      'LIVE_CREDENTIAL_LIMIT',
    ]);
    const names = (await operator.request('GET', '/backoffice/v1/operator-credentials')).body.data.map((credential: { name: string }) => credential.name);
    expect(names).not.toContain('Third shift');

    expect((await operator.request('POST', `/backoffice/v1/operator-credentials/${second.body.credential_id}/revoke`)).status).toBe(200);
    expect((await operator.request('POST', '/backoffice/v1/operator-credentials', { name: 'Third shift' })).status).toBe(201);
  });

  it('audits every issuance with who issued what for whom and until when', async () => {
    // The trail is written after each answer: read until the last issuance (the third operator credential) is there.
    const issuedByOperatorApi = (response: { body: { data: Array<{ action: string; status_code: number }> } }) =>
      response.body.data.filter((entry) => entry.action === 'POST /backoffice/v1/operator-credentials' && entry.status_code === 201).length;
    const trail = await eventually(
      () => operator.request('GET', `/backoffice/v1/audit?actor_credential_id=${operatorCredentialId}&limit=500`),
      (response) => issuedByOperatorApi(response) >= 3,
      'the third operator issuance in the audit trail',
    );
    const issuances = trail.body.data.filter((entry: { status_code: number; details: unknown }) => entry.status_code === 201 && entry.details !== null);
    const operatorId = (await operator.request('GET', '/backoffice/v1/operator-credentials')).body.data.find(
      (credential: { credential_id: string }) => credential.credential_id === operatorCredentialId,
    ).operator_id;
    const byAction = (action: string) =>
      issuances.filter((entry: { action: string }) => entry.action === action).map((entry: { details: Record<string, unknown> }) => entry.details);
    expect(byAction('POST /backoffice/v1/agents')).toEqual([
      {
        issued_credential_id: expect.stringMatching(/^cred_/),
        role: 'agent',
        agent_id: agent.agentId,
        operator_id: null,
        issued_by_operator_id: operatorId,
        expires_at: expect.any(String),
      },
    ]);
    expect(byAction('POST /backoffice/v1/agents/:agentId/credentials')).toEqual([
      expect.objectContaining({ role: 'agent', agent_id: agent.agentId, issued_by_operator_id: operatorId }),
    ]);
    const operatorIssuances = byAction('POST /backoffice/v1/operator-credentials');
    expect(operatorIssuances).toHaveLength(3);
    expect(
      operatorIssuances.every(
        (details: Record<string, unknown>) =>
          details['role'] === 'operator' && String(details['operator_id']).startsWith('op_') && details['issued_by_operator_id'] === operatorId,
      ),
    ).toBe(true);
    const refusals = trail.body.data.filter((entry: { error_code: string | null }) => entry.error_code === 'FORBIDDEN');
    expect(refusals.every((entry: { details: unknown }) => entry.details === null)).toBe(true);
    expect(refusals.length).toBeGreaterThanOrEqual(2);

    const all = await operator.request('GET', '/backoffice/v1/audit?limit=500');
    const bootstrap = all.body.data.find(
      (entry: { actor_role: string; details: { issued_credential_id?: string } | null }) =>
        entry.actor_role === 'command' && entry.details?.issued_credential_id === operatorCredentialId,
    );
    expect(bootstrap).toMatchObject({ action: 'COMMAND operator:create', details: { role: 'operator', operator_id: operatorId, issued_by_operator_id: null } });
  });
});
