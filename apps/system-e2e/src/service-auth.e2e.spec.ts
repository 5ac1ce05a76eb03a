/**
 * Goal: the services' internal APIs answer only the services allowed to call each route, with a
 * valid service token, and book an operator's or reviewer's action under the actor the gateway
 * authenticated, never under one a request body names (docs/operations/service-keys.md). Method: the real services as
 * processes; forged internal calls straight to the ledger, disputes and the gateway's internal
 * listener, as an attacker inside the network would make them; then the money is read back.
 */
import { createPrivateKey } from 'node:crypto';
import { createOperator, rawRequest, SystemUnderTest, type BackofficeClient, type SignedClient, type TestResponse } from '@mp/shared-testing';
import { SignJWT } from 'jose';
import { Client } from 'pg';

describe('service-to-service authentication', () => {
  let system: SystemUnderTest;
  let merchant: SignedClient;
  let operator: BackofficeClient;
  let merchantId: string;

  beforeAll(async () => {
    system = await SystemUnderTest.start();
    merchant = await system.createClient('Service auth shop');
    merchantId = merchant.credentials.merchantId;
    operator = await createOperator(system);
  });
  afterAll(async () => system?.stop());

  const adjustmentPath = () => `/internal/merchants/${merchantId}/deposit-adjustments`;
  const topUp = (operatorId: string) => ({
    adjustment_id: `ADJ-${operatorId}`,
    currency: 'RUB',
    amount_minor: '500000',
    reason: 'forged top-up',
    operator_id: operatorId,
  });
  const postJson = (baseUrl: string, path: string, body: object, headers: Record<string, string> = {}) =>
    rawRequest(baseUrl, 'POST', path, { 'content-type': 'application/json', ...headers }, Buffer.from(JSON.stringify(body)));

  /** A token signed with the gateway's real key, but with the claims an attacker replays or bends. */
  async function gatewayToken(claims: { audience: string; issuedAt: number; expiresAt: number; act?: { type: string; id: string } }): Promise<string> {
    const key = createPrivateKey({ key: Buffer.from(system.serviceKeys.keys.gateway.privateKey, 'base64'), format: 'der', type: 'pkcs8' });
    const token = await new SignJWT(claims.act ? { act: claims.act } : {})
      .setProtectedHeader({ alg: 'EdDSA', kid: 'gateway' })
      .setIssuer('gateway')
      .setAudience(claims.audience)
      .setIssuedAt(claims.issuedAt)
      .setExpirationTime(claims.expiresAt)
      .sign(key);
    return `Bearer ${token}`;
  }

  function expectRefused(response: TestResponse, status: 401 | 403): void {
    expect([response.status, response.body?.code]).toEqual([status, status === 401 ? 'UNAUTHENTICATED' : 'FORBIDDEN']);
    expect(typeof response.body.message).toBe('string');
    expect(Array.isArray(response.body.details)).toBe(true);
  }

  async function ledgerRows(): Promise<{ adjustments: number; postings: number }> {
    const client = new Client({ connectionString: system.databaseUrl('ledger') });
    await client.connect();
    try {
      const adjustments = await client.query('SELECT count(*)::int AS n FROM ledger_deposit_adjustments WHERE merchant_id = $1', [merchantId]);
      const postings = await client.query('SELECT count(*)::int AS n FROM ledger_postings WHERE merchant_id = $1', [merchantId]);
      return { adjustments: adjustments.rows[0].n, postings: postings.rows[0].n };
    } finally {
      await client.end();
    }
  }

  it('refuses forged calls to the ledger (no token, expired, another service, another audience, another operator), logs each, and moves no money', async () => {
    const before = await rawRequest(
      system.ledgerUrl,
      'GET',
      `/internal/merchants/${merchantId}/balances`,
      await system.internalHeaders('ledger'),
      Buffer.alloc(0),
    );
    expect(before.status).toBe(200);
    const now = Math.floor(Date.now() / 1000);

    expectRefused(await postJson(system.ledgerUrl, adjustmentPath(), topUp('op_forged')), 401);
    const expired = await gatewayToken({ audience: 'ledger', issuedAt: now - 200, expiresAt: now - 140, act: { type: 'operator', id: 'op_forged' } });
    expectRefused(await postJson(system.ledgerUrl, adjustmentPath(), topUp('op_forged'), { authorization: expired }), 401);
    // A valid token of payments: the ledger lets payments place holds, never adjust a deposit.
    expectRefused(
      await postJson(
        system.ledgerUrl,
        adjustmentPath(),
        topUp('op_forged'),
        await system.internalHeaders('ledger', { as: 'payments', actor: { type: 'operator', id: 'op_forged' } }),
      ),
      403,
    );
    // The gateway's valid token for the payments service, replayed at the ledger.
    expectRefused(
      await postJson(
        system.ledgerUrl,
        adjustmentPath(),
        topUp('op_forged'),
        await system.internalHeaders('payments', { actor: { type: 'operator', id: 'op_forged' } }),
      ),
      401,
    );
    // The gateway's token for one operator, with a body naming another.
    expectRefused(
      await postJson(
        system.ledgerUrl,
        adjustmentPath(),
        topUp('op_forged'),
        await system.internalHeaders('ledger', { actor: { type: 'operator', id: 'op_real' } }),
      ),
      403,
    );
    // No actor at all: an operator's action needs one.
    expectRefused(await postJson(system.ledgerUrl, adjustmentPath(), topUp('op_forged'), await system.internalHeaders('ledger')), 403);
    // The gateway never places holds.
    const hold = {
      hold_id: `payout:${merchantId}:forged`,
      merchant_id: merchantId,
      currency: 'RUB',
      amount_minor: '100',
      fee_minor: '0',
      reference: { kind: 'payment_order', id: 'forged' },
    };
    expectRefused(await postJson(system.ledgerUrl, '/internal/holds', hold, await system.internalHeaders('ledger')), 403);

    const after = await rawRequest(
      system.ledgerUrl,
      'GET',
      `/internal/merchants/${merchantId}/balances`,
      await system.internalHeaders('ledger'),
      Buffer.alloc(0),
    );
    expect(after.body).toEqual(before.body);
    expect(await ledgerRows()).toEqual({ adjustments: 0, postings: 0 });

    const refusals = system.outputOf('ledger').filter((line) => line.includes('internal call refused'));
    expect(refusals.filter((line) => line.includes('refused 401')).length).toBeGreaterThanOrEqual(3);
    expect(refusals.some((line) => line.includes('caller=payments') && line.includes('POST /internal/merchants/:merchantId/deposit-adjustments'))).toBe(true);
    expect(refusals.some((line) => line.includes('caller=gateway') && line.includes('POST /internal/holds'))).toBe(true);
    expect(refusals.some((line) => line.includes('claim aud'))).toBe(true);
    expect(refusals.some((line) => line.includes('caller=gateway') && line.includes('names another actor'))).toBe(true);
    // The log names the caller and the route, never the token.
    expect(system.outputOf('ledger').some((line) => line.includes(expired.slice(7, 60)))).toBe(false);
  });

  it('books an operator’s deposit adjustment through the gateway under the operator its token names', async () => {
    const booked = await operator.request('POST', `/backoffice/v1/merchants/${merchantId}/deposit-adjustments`, {
      adjustment_id: 'ADJ-real',
      currency: 'RUB',
      amount: 10,
      reason: 'deposit wired',
    });
    expect(booked.status).toBe(201);
    const client = new Client({ connectionString: system.databaseUrl('ledger') });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT operator_id FROM ledger_deposit_adjustments WHERE merchant_id = $1', [merchantId]);
      expect(rows).toHaveLength(1);
      expect(rows[0].operator_id).toMatch(/\S/);
      expect(rows[0].operator_id).not.toBe('op_forged');
    } finally {
      await client.end();
    }
  });

  it('refuses a dispute review whose body names another reviewer than the token', async () => {
    const review = { merchant_id: merchantId, decision: 'ACCEPTED', reviewer_role: 'operator', reviewer_id: 'op_forged' };
    const path = `/internal/disputes/dsp_${'0'.repeat(24)}/review`;
    expectRefused(await postJson(system.urlOf('disputes'), path, review), 401);
    expectRefused(
      await postJson(system.urlOf('disputes'), path, review, await system.internalHeaders('disputes', { actor: { type: 'operator', id: 'op_real' } })),
      403,
    );
    expectRefused(
      await postJson(
        system.urlOf('disputes'),
        path,
        review,
        await system.internalHeaders('disputes', { as: 'ledger', actor: { type: 'operator', id: 'op_forged' } }),
      ),
      403,
    );
  });

  it('keeps health and metrics open: they carry no money', async () => {
    for (const service of ['ledger', 'payments', 'disputes', 'withdrawals', 'callbacks'] as const) {
      expect((await fetch(`${system.urlOf(service)}/health/live`)).status).toBe(200);
      expect((await fetch(`${system.urlOf(service)}/metrics`)).status).toBe(200);
    }
  });
});
